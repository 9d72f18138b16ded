/**
 * The checks of one graphql-ws `subscribe` message, in the order HTTP applies them to a query:
 * parse (token limit), validation (depth, alias and directive limits; "Did you mean" suggestions
 * removed when introspection is off, as Apollo does over HTTP), the operation (subscriptions only),
 * the variables (nesting and Unicode, well-formed.ts), the cost limit, and the whole document
 * against the scope table (operation-access.ts). Returns the errors to send, or the document and
 * operation to execute.
 */
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import { BadRequestError, type AppError } from '../errors/app-error';
import type { Caller } from '../modules/auth/api-key.service';
import type { GraphQLLimits } from '../policy/limits';
import { operationRefusal } from '../policy/operation-access';
import type { TrustedDocuments } from '../policy/trusted-documents';
import { variablesError } from '../policy/well-formed';

export interface SubscribeMessage {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

export interface OperationChecks {
  schema: GraphQLSchema;
  limits: GraphQLLimits;
  /** GRAPHQL_MAX_INPUT_DEPTH. */
  inputDepth: number;
  /** TRUSTED_DOCUMENTS allow/enforce: the same list as over HTTP (trusted-documents.ts). */
  trustedDocuments?: TrustedDocuments | null;
}

export type CheckedOperation =
  | { errors: readonly GraphQLError[] }
  | { document: DocumentNode; operation: OperationDefinitionNode; variables: Record<string, unknown> };

/** An AppError as the GraphQL error graphql-ws sends (formatted by subscriptions.ts). */
export const gqlError = (error: AppError): GraphQLError => new GraphQLError(error.message, { originalError: error });

export function checkSubscription(
  { schema, limits, inputDepth, trustedDocuments }: OperationChecks,
  caller: Caller | null,
  payload: SubscribeMessage,
): CheckedOperation {
  const fail = (error: AppError) => ({ errors: [gqlError(error)] });
  // Trusted documents: refused before parsing when not listed (enforce); a listed one comes
  // parsed and validated, and skips the cost check, as over HTTP.
  const listed = trustedDocuments?.forSubscription(payload, caller) ?? null;
  if (listed instanceof Error) return fail(listed);
  let document: DocumentNode;
  try {
    document = listed?.document ?? parse(listed?.body ?? payload.query, limits.parseOptions);
  } catch (error) {
    const e = error as GraphQLError;
    const parseError = new GraphQLError(e.message, {
      nodes: e.nodes,
      source: e.source,
      positions: e.positions,
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
    return { errors: [parseError] };
  }
  const invalid = listed?.document ? [] : validate(schema, document, [...specifiedRules, ...limits.validationRules]);
  if (invalid.length > 0) {
    return {
      errors: invalid.map((e) =>
        e.originalError
          ? e
          : new GraphQLError(e.message, {
              nodes: e.nodes,
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            }),
      ),
    };
  }
  const operation = getOperationAST(document, payload.operationName);
  if (!operation) return fail(new BadRequestError('Unable to identify the operation (operationName?)'));
  if (operation.operation !== 'subscription') {
    return fail(
      new BadRequestError('Only subscriptions are served over WebSocket; send queries and mutations over HTTP'),
    );
  }
  const variables = payload.variables ?? {};
  const badVariables = variablesError(variables, inputDepth);
  if (badVariables) return fail(badVariables);
  // Coerced here, as Apollo does before executing over HTTP (BAD_USER_INPUT, 400): graphql-js's own
  // refusal while subscribing has no code, and was masked as INTERNAL.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 50 });
  if (coerced.errors) {
    return {
      errors: coerced.errors.map(
        (e) =>
          new GraphQLError(e.message, {
            nodes: e.nodes,
            // A scalar's own refusal (an ID that is not one) is answered with its message, as over HTTP.
            originalError: e.originalError,
            extensions: { code: 'BAD_USER_INPUT' },
          }),
      ),
    };
  }
  const cost = listed?.document ? null : limits.costError(schema, document, variables);
  if (cost) return { errors: [cost] };
  // The whole document against the scope table, as for queries (operation-access.ts): the
  // subscription field and everything it selects (`order { pet { orders } }` needs orders:read).
  const refused = operationRefusal(schema, document, operation, caller, variables);
  if (refused) return fail(refused);
  return { document, operation, variables };
}
