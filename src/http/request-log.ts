/**
 * Logging: pino's options for the app (JSON lines, or coloured readable lines through pino-pretty in
 * development), credentials kept out of every line, and ONE line per request (Fastify's own two
 * lines, "incoming request" and "request completed", are turned off in app.ts) carrying the method,
 * the path with credentials redacted, the status, the duration, the request id and, for GraphQL, the
 * operation's name and type and the error codes of the response.
 */
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config';
import { traceIds, tracingEnabled } from '../telemetry/tracing';
import { redactUrl } from '../common/redact-url';

/** Credentials never reach the logs, whatever else a caller configures. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

/** pino options for the app: level, format, redaction, and serializers that redact URLs. */
export function loggerOptions(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    level: config.logLevel,
    // With tracing on (OTEL_*), every line logged inside a request carries its trace and span ids.
    ...(tracingEnabled() ? { mixin: traceIds } : {}),
    ...(config.logFormat === 'pretty' && !('stream' in overrides)
      ? {
          transport: {
            target: 'pino-pretty',
            options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true },
          },
        }
      : {}),
    ...overrides,
    serializers: {
      // What Fastify logs of a request in an error line: no headers, the URL redacted.
      req: (req: { method?: string; url?: string; id?: string }) => ({
        method: req.method,
        url: req.url === undefined ? undefined : redactUrl(req.url),
      }),
    },
    redact: LOG_REDACT,
  };
}

/** Longest operation name written whole in a log line: a client chooses names, at any length. */
const MAX_LOGGED_NAME = 100;

/** The name, or its first MAX_LOGGED_NAME characters and its length when longer. */
export const boundedName = (name: string): string =>
  name.length <= MAX_LOGGED_NAME ? name : `${name.slice(0, MAX_LOGGED_NAME)}... (${name.length} characters)`;

/** What the GraphQL layer learns about a request, for its log line. */
export interface GraphQLLogInfo {
  operationName?: string | null;
  operationType?: string;
  errorCodes?: string[];
}

// On the context under a symbol, because Apollo hands plugins a shallow copy of the context object.
const LOG_INFO = Symbol('graphql log info');

declare module 'fastify' {
  interface FastifyRequest {
    /** What the GraphQL step below learnt of the request's operation, for its log line. */
    graphqlLog: GraphQLLogInfo | null;
  }
}

/** Ties a GraphQL context to its HTTP request, so the step below can describe the request's line. */
export function linkGraphQLContext<T extends object>(request: FastifyRequest, context: T): T {
  const info: GraphQLLogInfo = {};
  // A plain property (enumerable, so Apollo's copy keeps it): a property defined with other
  // attributes costs the context its fast shape, which every resolver then reads it through.
  (context as WithLogInfo)[LOG_INFO] = info;
  request.graphqlLog = info;
  return context;
}

type WithLogInfo = { [LOG_INFO]?: GraphQLLogInfo };
/** The log info `linkGraphQLContext` put on a context (none: a context not made for an HTTP request). */
const logInfoOf = (context: object): GraphQLLogInfo | undefined => (context as WithLogInfo)[LOG_INFO];
const logInfo = (rc: { contextValue: object }) => logInfoOf(rc.contextValue)!;

/** Records each operation's name, type and error codes for the request's log line. */
const requestLog: RequestStepListener<object> = {
  didResolveOperation(rc) {
    const info = logInfo(rc);
    info.operationName = rc.operationName === null ? null : boundedName(rc.operationName);
    info.operationType = rc.operation?.operation;
  },
  willSendResponse(rc) {
    const body = rc.response.body;
    const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
    if (errors?.length) {
      logInfo(rc).errorCodes = [...new Set(errors.map((e) => String(e.extensions?.code ?? 'UNKNOWN')))];
    }
  },
};
export const requestLogStep: RequestStep<object> = ({ contextValue }) =>
  logInfoOf(contextValue) ? requestLog : undefined;

/**
 * One line per request, when its response has been sent: `POST /graphql 200 3.1 ms query PetById`
 * as the message, and the same as fields for machines.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.decorateRequest('graphqlLog', null);
  app.addHook('onResponse', (request, reply, done) => {
    logLine(request, reply);
    done();
  });
}

/** The request's line (nothing when the level is off). */
export function logLine(request: FastifyRequest, reply: FastifyReply): void {
  const status = reply.statusCode;
  const level = status >= 500 ? 'error' : 'info';
  // A line nobody writes (LOG_LEVEL above it) is not built.
  const log = request.log as typeof request.log & { isLevelEnabled?: (level: string) => boolean };
  if (log.isLevelEnabled?.(level) === false) return;
  const url = redactUrl(request.url);
  const durationMs = Math.round(reply.elapsedTime * 10) / 10;
  const graphql = request.graphqlLog;
  const fields: Record<string, unknown> = { method: request.method, url, status, durationMs };
  let msg = `${request.method} ${url} ${status} ${durationMs} ms`;
  if (graphql && (graphql.operationType || graphql.errorCodes)) {
    fields.graphql = { ...graphql };
    if (graphql.operationType) msg += ` ${graphql.operationType} ${graphql.operationName ?? '(anonymous)'}`;
    if (graphql.errorCodes) msg += ` errors: ${graphql.errorCodes.join(',')}`;
  }
  request.log[level](fields, msg);
}
