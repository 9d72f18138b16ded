/**
 * The one access decision, used by the GraphQL auth checker and the REST route hook alike: may this
 * caller run this operation of the scope table?
 */
import { AppError, ForbiddenError, UnauthenticatedError } from '../../errors/app-error';
import type { Caller } from './caller';
import { allows, CUSTOMER_OPERATIONS, SCOPE_TABLE, type Requirement } from '../../common/scopes';

/** The requirement of `operation`; throws (a programming error, answered 500) when it is not listed. */
export function requirementOf(operation: string): Requirement {
  const requirement = (SCOPE_TABLE as Record<string, Requirement>)[operation];
  if (!requirement) throw new Error(`${operation} is missing from SCOPE_TABLE (src/common/scopes.ts)`);
  return requirement;
}

/**
 * Whether `caller` may use `operation`: its scopes, or, for a signed-in person (an access token), the
 * customer's operations (their own orders).
 */
function permits(caller: Caller, operation: string, required: Requirement): boolean {
  return allows(caller.scopes, required) || (caller.kind === 'token' && CUSTOMER_OPERATIONS.has(operation));
}

/** What an anonymous caller is told it may also use, when a signed-in customer may run the operation. */
const OR_CUSTOMER = ', or a signed-in customer (Authorization: Bearer <access token>)';

/** Throws UNAUTHENTICATED (no key) or FORBIDDEN (a key without the scope) unless allowed. */
export function authorize(caller: Caller | null, operation: string): void {
  const required = requirementOf(operation);
  if (required === 'public') return;
  if (!caller) {
    throw new UnauthenticatedError(
      `${operation} needs an API key with scope ${required} (Authorization: Bearer <API key>)` +
        (CUSTOMER_OPERATIONS.has(operation) ? OR_CUSTOMER : ''),
    );
  }
  if (!permits(caller, operation, required)) {
    throw new ForbiddenError(`This ${who(caller)} lacks scope ${required}, which ${operation} needs`);
  }
}

/**
 * The refusal of a whole operation that uses every one of `operations` (GraphQL schema coordinates),
 * or null when the caller may use them all: UNAUTHENTICATED when anonymous, FORBIDDEN when the key
 * lacks a scope. One message names every refused field and the scope it needs.
 */
export function refusal(caller: Caller | null, operations: readonly string[]): AppError | null {
  const refused = operations
    .map((operation) => ({ operation, required: requirementOf(operation) }))
    .filter(({ operation, required }) => !(required === 'public' || (caller && permits(caller, operation, required))));
  if (refused.length === 0) return null;
  const list = refused.map(({ operation, required }) => `${operation} (${required})`).join(', ');
  if (!caller) {
    // As authorize says it for REST: GET /store/orders and Query.orders refuse an anonymous caller alike.
    const customer = refused.every(({ operation }) => CUSTOMER_OPERATIONS.has(operation)) ? OR_CUSTOMER : '';
    return new UnauthenticatedError(
      `This operation needs an API key (Authorization: Bearer <API key>) with the scopes of ${list}${customer}; nothing was run`,
    );
  }
  return new ForbiddenError(
    `This ${who(caller)} lacks the scopes of ${list}, which this operation uses; nothing was run`,
  );
}

const who = (caller: Caller): string => (caller.kind === 'key' ? 'API key' : 'access token');
