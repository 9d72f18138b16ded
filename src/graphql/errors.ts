/**
 * GraphQL error formatting: every error leaves with `extensions { code, status }` from the one
 * error model. Expected errors (AppError, and graphql-js/Apollo request errors) keep their message;
 * anything else is masked as INTERNAL with the request id and logged with its stack, so no stack,
 * SQL or Prisma text reaches a client.
 */
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ErrorCode, UnavailableError, UNAVAILABLE_RETRY_AFTER_S } from '../errors/app-error';
import { isDatabaseUnavailable } from '../errors/database-errors';
import type { GraphQLContext } from './context';
import { tokenLimitError } from './limits';

/** Apollo's own request-error codes, as this API reports them. */
const REQUEST_ERRORS: Record<string, { code: ErrorCode; status: number }> = {
  GRAPHQL_PARSE_FAILED: { code: ErrorCode.BAD_REQUEST, status: 400 },
  BAD_REQUEST: { code: ErrorCode.BAD_REQUEST, status: 400 },
  OPERATION_RESOLUTION_FAILURE: { code: ErrorCode.BAD_REQUEST, status: 400 },
  GRAPHQL_VALIDATION_FAILED: { code: ErrorCode.VALIDATION_FAILED, status: 400 },
  BAD_USER_INPUT: { code: ErrorCode.VALIDATION_FAILED, status: 400 },
};

/** Apollo protocol codes that clients act on (automatic persisted queries): kept as they are. */
const PROTOCOL_CODES = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED']);

const INTERNAL_MESSAGE = 'Internal server error';

/**
 * The AppError behind a GraphQL error, if any: thrown by a resolver, or the `originalError` of an
 * error Apollo wrapped (the limits of limits.ts, raised during validation), or graphql-js's
 * token-limit parse error.
 */
export function appErrorOf(error: unknown): AppError | null {
  let current: unknown = unwrapResolverError(error);
  for (let i = 0; i < 5 && current; i++) {
    if (current instanceof AppError) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  if (isDatabaseUnavailable(unwrapResolverError(error))) return new UnavailableError();
  const code = (error as { extensions?: { code?: unknown } })?.extensions?.code;
  return code === 'GRAPHQL_PARSE_FAILED' ? tokenLimitError((error as Error).message) : null;
}

/**
 * graphql-js refusing a field argument while executing: validation lets `input: { quantity: $q }`
 * through when `$q` has a default, and an explicit null then makes the literal invalid. The
 * messages are graphql-js's (execution/values.js), which gives these errors no code of their own.
 */
const ARGUMENT_REFUSED = /^Argument "[^"]+" (has invalid value|of required type|of non-null type)/;

function isArgumentRefusal(error: unknown): boolean {
  let current: unknown = error;
  for (let i = 0; i < 5 && current instanceof GraphQLError; i++) {
    if (!current.originalError) return ARGUMENT_REFUSED.test(current.message);
    current = current.originalError;
  }
  return false;
}

export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = appErrorOf(error);
  if (original) {
    return { ...formatted, message: original.message, extensions: { code: original.code, status: original.status } };
  }
  if (isArgumentRefusal(error)) {
    return { ...formatted, extensions: { code: ErrorCode.VALIDATION_FAILED, status: 400 } };
  }
  const apolloCode = formatted.extensions?.code;
  if (typeof apolloCode === 'string') {
    const mapped = REQUEST_ERRORS[apolloCode];
    if (mapped) return { ...formatted, extensions: { code: mapped.code, status: mapped.status } };
    if (PROTOCOL_CODES.has(apolloCode)) return { ...formatted, extensions: { code: apolloCode, status: 200 } };
  }
  // Masked: the plugin below logs the original and adds the request id.
  return { message: INTERNAL_MESSAGE, locations: formatted.locations, path: formatted.path, extensions: { code: ErrorCode.INTERNAL, status: 500 } };
}

function isExpected(error: unknown): boolean {
  if (appErrorOf(error) || isArgumentRefusal(error)) return true;
  const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
  return typeof code === 'string' && (code in REQUEST_ERRORS || PROTOCOL_CODES.has(code));
}

/** Logs unexpected errors with their stack, and puts the request id in every INTERNAL error. */
export function errorReportingPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors(rc: GraphQLRequestContext<GraphQLContext>) {
          for (const error of rc.errors ?? []) {
            if (!isExpected(error)) {
              rc.contextValue.log.error({ err: unwrapResolverError(error), path: error.path }, 'unexpected GraphQL error');
            }
          }
        },
        async willSendResponse(rc: GraphQLRequestContext<GraphQLContext>) {
          const body = rc.response.body;
          if (body?.kind !== 'single' || !body.singleResult.errors) return;
          setAuthStatus(rc, body.singleResult.errors);
          setUnavailableStatus(rc, body.singleResult.errors);
          const requestId = rc.contextValue.requestId;
          body.singleResult.errors = body.singleResult.errors.map((e) =>
            e.extensions?.code === ErrorCode.INTERNAL
              ? { ...e, message: `${INTERNAL_MESSAGE} (request id ${requestId})`, extensions: { ...e.extensions, requestId } }
              : e,
          );
        },
      };
    },
  };
}

/**
 * Auth failures are HTTP failures too: a response holding an UNAUTHENTICATED error is sent as 401
 * with `WWW-Authenticate: Bearer`, one holding FORBIDDEN as 403 (401 wins when both occur), even
 * though execution started and other fields may carry data. Clients, proxies and logs then see an
 * auth failure for what it is, as API.md's 401/403 rules ask.
 */
function setAuthStatus(rc: GraphQLRequestContext<GraphQLContext>, errors: readonly GraphQLFormattedError[]): void {
  const codes = new Set(errors.map((e) => e.extensions?.code));
  if (codes.has(ErrorCode.UNAUTHENTICATED)) {
    rc.response.http.status = 401;
    // Only a missing key gets here: a bad one was answered 401 before GraphQL ran (auth.hooks.ts).
    rc.response.http.headers.set('www-authenticate', 'Bearer');
  } else if (codes.has(ErrorCode.FORBIDDEN)) {
    rc.response.http.status = 403;
  }
}

/**
 * The database unavailable (errors/database-errors.ts): the response is 503 with `Retry-After`, so
 * that clients, proxies and load balancers retry it as the outage it is (unless an auth failure
 * already set 401/403).
 */
function setUnavailableStatus(rc: GraphQLRequestContext<GraphQLContext>, errors: readonly GraphQLFormattedError[]): void {
  if (!errors.some((e) => e.extensions?.code === ErrorCode.UNAVAILABLE)) return;
  if (rc.response.http.status === 401 || rc.response.http.status === 403) return;
  rc.response.http.status = 503;
  rc.response.http.headers.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
  rc.contextValue.log.warn('database unavailable');
}
