/**
 * GraphQL error formatting: every error leaves with `extensions { code, status }` from the one
 * error model. Expected errors (AppError, and graphql-js/Apollo request errors) keep their message;
 * anything else is masked as INTERNAL with the request id and logged with its stack, so no stack,
 * SQL or Prisma text reaches a client.
 */
import type { GraphQLRequestContext } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ErrorCode, UNAVAILABLE_RETRY_AFTER_S } from '../errors/app-error';
import { knownError } from '../errors/database-errors';
import type { GraphQLContext } from '../modules/context';
import { inResponseOrder } from './error-order';
import { tokenLimitError } from './limits';

/** Apollo's own request-error codes, as this API reports them. */
const REQUEST_ERRORS: Record<string, { code: ErrorCode; status: number }> = {
  GRAPHQL_PARSE_FAILED: { code: ErrorCode.BAD_REQUEST, status: 400 },
  BAD_REQUEST: { code: ErrorCode.BAD_REQUEST, status: 400 },
  OPERATION_RESOLUTION_FAILURE: { code: ErrorCode.BAD_REQUEST, status: 400 },
  GRAPHQL_VALIDATION_FAILED: { code: ErrorCode.VALIDATION_FAILED, status: 400 },
  BAD_USER_INPUT: { code: ErrorCode.VALIDATION_FAILED, status: 400 },
  // Automatic persisted queries: the client sends the query again (Apollo Client and urql read the
  // code). 404, not Apollo's 200: a response without `data` is 4xx under the GraphQL-over-HTTP spec.
  PERSISTED_QUERY_NOT_FOUND: { code: ErrorCode.PERSISTED_QUERY_NOT_FOUND, status: 404 },
  // APQ is off (TRUSTED_DOCUMENTS=enforce): the client stops sending hashes it expects to register
  // and sends the document in full (Apollo Client's link reads this code, or the message).
  PERSISTED_QUERY_NOT_SUPPORTED: { code: ErrorCode.PERSISTED_QUERY_NOT_SUPPORTED, status: 400 },
};

/**
 * Request errors Apollo raises with a message but no code of their own (or a code that says less
 * than its HTTP status), by the start of their message: Apollo's texts (requestPipeline.ts,
 * runHttpQuery.ts).
 */
const REQUEST_ERRORS_BY_MESSAGE: [prefix: string, mapped: { code: ErrorCode; status: number }][] = [
  // A string literal that is not well-formed Unicode (a lone surrogate, a control character): the
  // same answer as such a string in a variable (well-formed.ts).
  ['Syntax Error: Invalid Unicode escape sequence', { code: ErrorCode.VALIDATION_FAILED, status: 400 }],
  ['Syntax Error: Invalid character within String', { code: ErrorCode.VALIDATION_FAILED, status: 400 }],
  ['provided sha does not match query', { code: ErrorCode.PERSISTED_QUERY_HASH_MISMATCH, status: 400 }],
  ['Unsupported persisted query version', { code: ErrorCode.BAD_REQUEST, status: 400 }],
  ['GET requests only support query operations', { code: ErrorCode.METHOD_NOT_ALLOWED, status: 405 }],
  // A GET with a body type (`Content-Type: text/plain`): Apollo's 415, which it labelled BAD_REQUEST 400.
  [
    'GET requests may not have a content-type header other than application/json',
    { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, status: 415 },
  ],
  [
    "An 'accept' header was provided for this request which does not accept",
    { code: ErrorCode.NOT_ACCEPTABLE, status: 406 },
  ],
];

/**
 * Apollo's texts that speak to a developer of Apollo Server ("pass introspection: true to
 * ApolloServer"), replaced by what this service's operator sets: the variable, by name.
 */
const OPERATOR_MESSAGES: [prefix: string, message: string][] = [
  [
    'GraphQL introspection is not allowed',
    'Introspection is off on this server (GRAPHQL_INTROSPECTION is false, the default in production): the ' +
      'operation asked for __schema or __type. Its operator turns it on with GRAPHQL_INTROSPECTION=true.',
  ],
  [
    "An 'accept' header was provided for this request which does not accept",
    'This endpoint answers GraphQL as application/json or application/graphql-response+json, which the ' +
      "request's Accept header does not accept. A browser gets the explorer only where EXPLORER is sandbox or " +
      'graphiql (off by default in production): send a POST with a JSON body, or ask the operator for EXPLORER.',
  ],
];

/**
 * What a browser opening GET /graphql is told while the explorer is off: the 406 above, also when
 * its Accept also allows any type (every browser's does), which Apollo would answer with "must contain a
 * non-empty query" (src/graphql/explorer.ts, explorerOffNotice).
 */
export const EXPLORER_OFF_MESSAGE = OPERATOR_MESSAGES[1]![1];

/** The message with Apollo's developer-facing texts replaced (OPERATOR_MESSAGES). */
function operatorMessage(message: string): string {
  return OPERATOR_MESSAGES.find(([prefix]) => message.startsWith(prefix))?.[1] ?? message;
}

function requestErrorOf(formatted: GraphQLFormattedError): { code: ErrorCode; status: number } | undefined {
  const byMessage = REQUEST_ERRORS_BY_MESSAGE.find(([prefix]) => formatted.message.startsWith(prefix));
  if (byMessage) return byMessage[1];
  const code = formatted.extensions?.code;
  return typeof code === 'string' ? REQUEST_ERRORS[code] : undefined;
}

const INTERNAL_MESSAGE = 'Internal server error';

/**
 * A message without graphql-js's "Did you mean ...?" hint (the expression of Apollo's own
 * DisableSuggestions plugin, which only sees validation errors): `formatErrorFor` applies it.
 */
const withoutSuggestions = (message: string): string => message.replace(/ ?Did you mean(.+?)\?$/, '');

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
  const known = knownError(unwrapResolverError(error));
  if (known) return known;
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
  const mapped = requestErrorOf(formatted);
  if (mapped) {
    return {
      ...formatted,
      message: operatorMessage(formatted.message),
      extensions: { code: mapped.code, status: mapped.status },
    };
  }
  // Masked: the error-reporting step below logs the original and adds the request id.
  return {
    message: INTERNAL_MESSAGE,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: ErrorCode.INTERNAL, status: 500 },
  };
}

/**
 * `formatError` for a server whose introspection is off (`hideSuggestions`): no message keeps
 * graphql-js's "Did you mean ...?" hint, over HTTP (apollo.ts) and WebSocket (subscriptions.ts)
 * alike, whatever refused it: validation (a misspelt field), a variable's value (`{ statu: ... }` for
 * a `PetFilter`, an enum value misspelt) or a field's argument. The one place that removes them.
 */
export function formatErrorFor({
  hideSuggestions,
}: {
  hideSuggestions: boolean;
}): (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError {
  if (!hideSuggestions) return formatError;
  return (formatted, error) => {
    const out = formatError(formatted, error);
    return { ...out, message: withoutSuggestions(out.message) };
  };
}

function isExpected(error: unknown): boolean {
  if (appErrorOf(error) || isArgumentRefusal(error)) return true;
  return error instanceof GraphQLError && requestErrorOf(error) !== undefined;
}

/** Logs unexpected errors with their stack, and puts the request id in every INTERNAL error. */
const errorReporting: RequestStepListener<GraphQLContext> = {
  didEncounterErrors(rc) {
    for (const error of rc.errors ?? []) {
      if (!isExpected(error)) {
        rc.contextValue.log.error({ err: unwrapResolverError(error), path: error.path }, 'unexpected GraphQL error');
      }
    }
  },
  willSendResponse(rc) {
    const body = rc.response.body;
    if (body?.kind !== 'single') return;
    setStatus(rc, body.singleResult);
    if (!body.singleResult.errors) return;
    const requestId = rc.contextValue.requestId;
    body.singleResult.errors = inResponseOrder(body.singleResult.errors, body.singleResult.data).map((e) =>
      e.extensions?.code === ErrorCode.INTERNAL
        ? {
            ...e,
            message: `${INTERNAL_MESSAGE} (request id ${requestId})`,
            extensions: { ...e.extensions, requestId },
          }
        : e,
    );
  },
};

/** The error-reporting step (src/common/graphql/request-steps.ts). */
export const errorReportingStep: RequestStep<GraphQLContext> = () => errorReporting;

/**
 * The HTTP status rule (docs/graphql-api.md, "The HTTP status rule"): a response that carries `data` (an
 * operation that was executed, even when `data` is null) is 200, whatever its errors; errors met
 * while executing say their own status in `extensions.status`. A response without `data` (the
 * request was refused before execution: parse, validation, limits, access, persisted queries) is
 * sent with the status its error states, so HTTP and `extensions.status` always agree. A batch is 200
 * as a whole; each answer in it carries its own errors.
 */
function setStatus(
  rc: GraphQLRequestContext<GraphQLContext>,
  result: { data?: unknown; errors?: readonly GraphQLFormattedError[] },
): void {
  if (!rc.contextValue.batched && result.data === null && isUnavailable(result.errors)) {
    // Nothing was answered because the database is away: 503, as for REST, so that clients,
    // proxies and load balancers retry it as the outage it is. (Non-null data stays 200 below: the
    // GraphQL-over-HTTP spec requires 2xx for it, and clients would otherwise drop the data.)
    setUnavailableStatus(rc);
    return;
  }
  if (rc.contextValue.batched || 'data' in result) {
    rc.response.http.status = 200;
    return;
  }
  const status = result.errors?.[0]?.extensions?.status;
  if (typeof status === 'number') rc.response.http.status = status;
  if (status === 503) setUnavailableStatus(rc);
}

const isUnavailable = (errors: readonly GraphQLFormattedError[] | undefined): boolean =>
  Boolean(errors?.some((e) => e.extensions?.code === ErrorCode.UNAVAILABLE));

/** The database unavailable (errors/database-errors.ts): 503 with `Retry-After`, and one warning. */
function setUnavailableStatus(rc: GraphQLRequestContext<GraphQLContext>): void {
  rc.response.http.status = 503;
  rc.response.http.headers.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
  rc.contextValue.log.warn('database unavailable');
}
