/**
 * Builds the HTTP server: one Fastify instance serving GraphQL at /graphql (Apollo), the health
 * checks, and the REST shim (GET /pets/{petId}, GET /store/orders, their OpenAPI document at
 * /openapi.json and reference page at /docs). Starting and stopping the process is main.ts's job.
 *
 * `buildApp` composes Fastify plugins, registered in this order (hooks run in the order they were
 * added, so the order is part of the behaviour): the HTTP basics, compression and CORS, OpenAPI,
 * the metrics, the security headers, who is calling and the rate limit, health, the landing page,
 * REST, then the GraphQL endpoint with its subscriptions. Each plugin takes its own slice of the
 * configuration; docs/architecture.md lists them.
 */
import crypto from 'node:crypto';
import type { Server } from 'node:http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Config } from './config';
import { systemClock, type Clock } from './common/clock';
import type { Database } from './db/database';
import { graphqlPlugin } from './graphql/graphql.plugin';
import { createTokenVerifier } from './modules/auth/access-token';
import { startApiKeyCache } from './modules/auth/api-key.cache';
import { createServices, type Services } from './modules/services';
import { PET_BY_ID_URL } from './modules/pets/pet.routes';
import type { Subscriptions } from './subscriptions/subscriptions';
import { accessPlugin } from './http/access.plugin';
import { compressionAndCorsPlugin } from './http/compression-cors.plugin';
import { clientErrorHandler, frameworkErrorHandler } from './http/errors';
import { healthRoutes } from './http/health.routes';
import { httpBasicsPlugin } from './http/http-basics.plugin';
import { landingRoutes } from './http/landing.routes';
import { openApiPlugin } from './http/openapi';
import { registerRateLimit } from './http/rate-limit';
import { requestReadScopes } from './http/read-scope';
import { logLine, loggerOptions } from './http/request-log';
import { petsLifecycle, restPlugin } from './http/rest.plugin';
import { lifecycleHeaders } from './http/deprecation';
import {
  apiSecurityHeaders,
  securityHeaders,
  securityHeadersPlugin,
  type SecurityHeaders,
} from './http/security-headers';
import type { GraphQLSchema } from 'graphql';
import { createMetrics, metricsPlugin, type Metrics } from './telemetry/metrics';
import { tracingEnabled } from './telemetry/tracing';
import type { TrustedDocuments } from './policy/trusted-documents';
import type { GraphQLCache } from './graphql/response-cache';

declare module 'fastify' {
  interface FastifyInstance {
    /** GraphQL subscriptions: open connection and subscription counts (for metrics). */
    subscriptions: Subscriptions;
    /** The trusted list (TRUSTED_DOCUMENTS allow/enforce), null when off; main.ts reloads it on SIGHUP. */
    trustedDocuments: TrustedDocuments | null;
  }
}

export interface BuildAppOptions {
  config: Config;
  db: Database;
  /**
   * `false` for no logs (most tests), or pino options merged over the defaults (tests pass a
   * `stream` to read the lines); the redaction of credentials always applies.
   */
  logger?: false | Record<string, unknown>;
  /** A pino logger already made with `loggerOptions` (main.ts logs start-up with it); wins over `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** "Now" for time-dependent behaviour (the sunset of GET /pets/{petId}); tests pass a fixed one. */
  clock?: Clock;
  /**
   * Replaces the schema served (HTTP and WebSocket alike). Tests only: the differential tests serve
   * a reference reader this way (test/helpers/reference-reads.ts), through the same pipeline.
   */
  transformSchema?: (schema: GraphQLSchema, services: Services) => GraphQLSchema;
}

export { LOG_REDACT } from './http/request-log';

/**
 * Node's own bounds on slow clients (http.createServer options). Node checks pending requests every
 * `connectionsCheckingInterval` (30 s by default), so a 30 s REQUEST_TIMEOUT_MS was enforced
 * anywhere up to 60 s later, and `headersTimeout` defaulted to 60 s whatever was configured. Here
 * headers get the same time as the whole request, and the check runs at most a second apart: a slow
 * body or slow headers are cut with 408 within about a second of REQUEST_TIMEOUT_MS. With
 * REQUEST_TIMEOUT_MS=0 (no limit on the request) headers keep Node's 60 s.
 */
export function slowClientLimits(requestTimeoutMs: number): {
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = requestTimeoutMs > 0 ? requestTimeoutMs : 60_000;
  return {
    headersTimeout,
    connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(headersTimeout / 4))),
  };
}
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Fastify's own options: the logger, the bounds on requests, the proxy trusted, request ids. */
function fastifyOptions(
  config: Pick<Config, 'limits' | 'trustProxy' | 'logLevel' | 'logFormat' | 'rest'>,
  { logger, loggerInstance }: Pick<BuildAppOptions, 'logger' | 'loggerInstance'>,
  headers: SecurityHeaders | null,
  routerRefusalAnswered: (request: FastifyRequest, reply: FastifyReply) => void,
): FastifyHttpOptions<Server> & { loggerInstance?: FastifyBaseLogger } {
  const { limits, trustProxy } = config;
  const onPetsPath = lifecycleHeaders(PET_BY_ID_URL, petsLifecycle(config.rest.petsPath));
  return {
    // With tracing on, every line logged inside a request carries its trace and span ids (the
    // mixin of loggerOptions, http/request-log.ts).
    ...(loggerInstance ? { loggerInstance } : { logger: logger === false ? false : loggerOptions(config, logger) }),
    // One line per request instead of Fastify's two, written by http/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // Over the limit: 413 PAYLOAD_TOO_LARGE, before the body is buffered (http/errors.ts).
    bodyLimit: limits.bodyBytes,
    // Time allowed to receive a whole request (slow clients hold no connection forever): 408.
    requestTimeout: limits.requestTimeoutMs,
    // requireHostHeader off: Node would answer an HTTP/1.1 request without Host itself (a bare 400,
    // no body, no header); the Host check answers it in the Error shape (http/errors.ts).
    http: { ...slowClientLimits(limits.requestTimeoutMs), requireHostHeader: false },
    // What Node's parser refuses (431, 408, not HTTP/1.1) in the Error shape too (http/errors.ts).
    clientErrorHandler: clientErrorHandler(headers ? apiSecurityHeaders() : {}),
    // On close, keep-alive sockets with no request in flight are closed at once (those with one get
    // `Connection: close` on their answer: http/http-basics.plugin.ts); Fastify's default on Node >= 18.2, stated.
    forceCloseConnections: 'idle',
    // A request that arrives while the server drains (on a keep-alive connection, or one whose
    // headers were half sent at the signal) is served like those in flight, with `Connection:
    // close`. Fastify's default answers it a bare 503 of its own shape, without Retry-After, request
    // id or log line, though the process still serves everything in flight.
    return503OnClosing: false,
    // The router's refusals (an over-long path parameter, a URL that does not decode) in the Error
    // shape with the usual headers, not Fastify's own body (http/errors.ts).
    frameworkErrors: frameworkErrorHandler((request, reply) => {
      reply.header('x-request-id', request.id);
      headers?.(request, reply);
      // GET /pets/{petId}'s lifecycle headers are on every answer of its path (docs/rest.md).
      onPetsPath(request, reply);
      // No hook runs for these answers: their log line and their count are taken once sent.
      reply.raw.once('finish', () => routerRefusalAnswered(request, reply));
    }),
    // A number of hops as proxy-addr's own function for it (Fastify accepts a number, its types do not).
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    // A caller's X-Request-Id is kept when it is sane, so one id follows a request across services.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    },
  };
}

/** What the metrics read at scrape time that is built after them (by the GraphQL endpoint). */
interface LateSources {
  trustedDocuments: () => TrustedDocuments | null | undefined;
  graphqlCache: () => GraphQLCache | null;
}

/** Prometheus metrics (METRICS_PORT > 0; null otherwise), on their own port, never on the app's. */
function appMetrics(
  config: Pick<Config, 'metrics' | 'trustedDocuments' | 'cache'>,
  db: Pick<Database, 'pool' | 'pools'>,
  apiKeyCache: Awaited<ReturnType<typeof startApiKeyCache>>,
  late: LateSources,
): Metrics | null {
  if (config.metrics.port <= 0) return null;
  return createMetrics({
    maxOperationNames: config.metrics.maxOperationNames,
    deprecatedRoute: PET_BY_ID_URL,
    pool: db.pool ? () => db.pool : undefined,
    pools: db.pools,
    apiKeyCache: apiKeyCache ? () => apiKeyCache.cache.stats : undefined,
    trustedDocuments: config.trustedDocuments.mode !== 'off' ? () => late.trustedDocuments()?.counts : undefined,
    responseCache: config.cache.responseTtlS > 0 ? () => late.graphqlCache()?.store?.stats : undefined,
  });
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db, clock = systemClock } = options;
  const tracing = tracingEnabled();
  // What every answer carries, for the router's own refusals too (frameworkErrors).
  const headers = config.securityHeaders ? securityHeaders() : null;
  // The router's refusals (frameworkErrors) get the request's line and metrics as every answer does.
  let metrics: Metrics | null = null;
  const app = Fastify(
    fastifyOptions(config, options, headers, (request, reply) => {
      logLine(request, reply);
      metrics?.observe(request, reply);
    }),
  );
  const readScope = db.noteWrite ? requestReadScopes(db.noteWrite) : null;
  // First: the upgrade guard, first of all hooks, then the read scope, request ids, the request log.
  await app.register(httpBasicsPlugin, { requestTimeoutMs: config.limits.requestTimeoutMs, readScope, tracing });
  // gzip or br for every answer over 1 KiB, as Accept-Encoding asks (GraphQL, REST, /openapi.json).
  await app.register(compressionAndCorsPlugin, { cors: config.cors });
  // Before any route: @fastify/swagger collects routes as they are added.
  await app.register(openApiPlugin);

  // Authenticated keys are cached while this process LISTENs for key changes (api-key.cache.ts).
  const apiKeyCache = await startApiKeyCache(db, { ttlMs: config.apiKeys.cacheTtlMs }, app.log);
  if (apiKeyCache) app.addHook('onClose', apiKeyCache.stop);
  const services = createServices(db, { apiKeyCache: apiKeyCache?.cache });
  // Built with the schema (graphqlPlugin, below); the metrics read its tallies at scrape time.
  let graphqlCache: GraphQLCache | null = null;
  metrics = appMetrics(config, db, apiKeyCache, {
    trustedDocuments: () => (app.hasDecorator('trustedDocuments') ? app.trustedDocuments : null),
    graphqlCache: () => graphqlCache,
  });
  if (metrics) await app.register(metricsPlugin, { metrics, listen: config.metrics });
  // helmet's defaults on every response (the Sandbox page at GET /graphql brings its own nonce-based
  // CSP instead: graphql.plugin.ts), then the Host check.
  await app.register(securityHeadersPlugin, { headers });
  // Access tokens (AUTH_JWT_*, AUTH_DEV_TOKENS): nothing is fetched from the provider here, so a
  // provider that is down never stops the start (src/modules/auth/access-token.ts).
  const tokens = await createTokenVerifier(config.auth, app.log);
  // The rate limit's plugin and Redis (its hook is added by the access plugin, after the caller's).
  const limiter = await registerRateLimit(app, config.rateLimit);
  await app.register(accessPlugin, {
    apiKeys: services.apiKeys,
    tokens,
    limiter,
    readScope,
    redisPrefix: config.rateLimit.redisPrefix,
    readYourWritesMs: config.database.kind === 'postgres' ? (config.database.readYourWritesMs ?? 5_000) : 0,
  });

  await app.register(healthRoutes, { db, rateLimitStore: limiter.state, timeoutMs: config.readinessTimeoutMs });
  await app.register(landingRoutes, { explorer: config.graphql.explorer !== 'off' });
  await app.register(restPlugin, { services, petsPath: config.rest.petsPath, clock });
  await app.register(graphqlPlugin, {
    graphql: config.graphql,
    limits: config.limits,
    rateLimit: config.rateLimit,
    cache: config.cache,
    trustedDocuments: config.trustedDocuments,
    subscriptions: {
      settings: config.subscriptions,
      corsOrigins: config.cors.origins,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
    },
    tracing: { enabled: tracing, resolverSpans: config.tracing.resolverSpans },
    db,
    services,
    limiter,
    tokens,
    apiKeyCache: apiKeyCache?.cache,
    metrics,
    transformSchema: options.transformSchema,
    onCache: (cache) => (graphqlCache = cache),
  });
  return app;
}
