/**
 * The one access decision, used by the GraphQL auth checker and the REST route hook alike: may this
 * caller run this operation of the scope table?
 */
import { AppError, ForbiddenError, UnauthenticatedError } from '../../errors/app-error';
import type { Caller } from './api-key.service';
import { allows, SCOPE_TABLE, type Requirement } from '../../common/scopes';

/** The requirement of `operation`; throws (a programming error, answered 500) when it is not listed. */
export function requirementOf(operation: string): Requirement {
  const requirement = (SCOPE_TABLE as Record<string, Requirement>)[operation];
  if (!requirement) throw new Error(`${operation} is missing from SCOPE_TABLE (src/common/scopes.ts)`);
  return requirement;
}

/** Throws UNAUTHENTICATED (no key) or FORBIDDEN (a key without the scope) unless allowed. */
export function authorize(caller: Caller | null, operation: string): void {
  const required = requirementOf(operation);
  if (required === 'public') return;
  if (!caller) {
    throw new UnauthenticatedError(
      `${operation} needs an API key with scope ${required} (Authorization: Bearer <API key>)`,
    );
  }
  if (!allows(caller.scopes, required)) {
    throw new ForbiddenError(`This API key lacks scope ${required}, which ${operation} needs`);
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
    .filter(({ required }) => !(required === 'public' || (caller && allows(caller.scopes, required))));
  if (refused.length === 0) return null;
  const list = refused.map(({ operation, required }) => `${operation} (${required})`).join(', ');
  if (!caller) {
    return new UnauthenticatedError(
      `This operation needs an API key (Authorization: Bearer <API key>) with the scopes of ${list}; nothing was run`,
    );
  }
  return new ForbiddenError(`This API key lacks the scopes of ${list}, which this operation uses; nothing was run`);
}
