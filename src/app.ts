/**
 * Builds the HTTP server: one Fastify instance serving GraphQL at /graphql (Apollo), the health
 * checks, and the REST shim (GET /pets/{petId}, GET /store/orders, their OpenAPI document at
 * /openapi.json and reference page at /docs). Starting and stopping the process is main.ts's job.
 */
import crypto from 'node:crypto';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { Config } from './config';
import { systemClock, type Clock } from './common/clock';
import type { Database } from './db/database';
import { createApollo } from './graphql/apollo';
import { registerExplorerAssets } from './graphql/explorer';
import { createContext, type GraphQLContext } from './modules/context';
import { Reads } from './read/reads';
import { createLimits } from './policy/limits';
import { createCostBudget } from './policy/cost-budget';
import { createPointsStore } from './http/points-store';
import { createSchema } from './schema/schema';
import { registerSubscriptions, type Subscriptions } from './subscriptions/subscriptions';
import { startStoreEvents } from './modules/events/store-events';
import { frameworkErrorHandler, registerErrorHandlers, registerHostCheck } from './http/errors';
import { linkGraphQLContext, loggerOptions, registerRequestLog } from './http/request-log';
import { healthRoutes } from './http/health.routes';
import { landingRoutes } from './http/landing.routes';
import { registerRateLimit } from './http/rate-limit';
import { registerReadScope } from './http/read-scope';
import { SharedReadYourWrites } from './db/read-routing';
import { readRoutingPlugin } from './graphql/read-routing.plugin';
import { registerSecurityHeaders } from './http/security-headers';
import { registerUpgradeGuard } from './http/upgrade-guard';
import { startApiKeyCache } from './modules/auth/api-key.cache';
import { registerAccessControl, registerCallerResolution } from './modules/auth/auth.hooks';
import { createTokenVerifier } from './modules/auth/access-token';
import { registerCors } from './http/cors';
import { registerCompression } from './http/compression';
import { batchGuard } from './policy/batching';
import { registerDeprecatedPath, type Lifecycle } from './http/deprecation';
import { registerDocs } from './http/docs';
import { registerOpenApi } from './http/openapi';
import { orderRoutes } from './modules/orders/order.routes';
import { PET_BY_ID_URL, petRoutes } from './modules/pets/pet.routes';
import { createServices, type Services } from './modules/services';
import type { GraphQLSchema } from 'graphql';
import { createMetrics, reportOpenSubscriptions } from './telemetry/metrics';
import { graphqlTracingPlugin, traceGraphQLHandler } from './graphql/graphql-tracing';
import { registerSpanRouteNames } from './telemetry/http-tracing';
import { tracingEnabled } from './telemetry/tracing';
import { TrustedDocuments, TrustedDocumentsError } from './policy/trusted-documents';
import { StartupError } from './db/startup';
import { cachePolicyPlugin } from './graphql/cache-policy';
import { createGraphQLCache, type GraphQLCache } from './graphql/response-cache';

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

export async function buildApp({
  config,
  db,
  logger,
  loggerInstance,
  clock = systemClock,
  transformSchema,
}: BuildAppOptions): Promise<FastifyInstance> {
  const tracing = tracingEnabled();
  const trustProxy = config.trustProxy;
  // What every answer carries, for the router's own refusals too (set once the headers are registered).
  let securityHeaders: ((request: FastifyRequest, reply: FastifyReply) => void) | null = null;
  const app = Fastify({
    // With tracing on, every line logged inside a request carries its trace and span ids (the
    // mixin of loggerOptions, http/request-log.ts).
    ...(loggerInstance ? { loggerInstance } : { logger: logger === false ? false : loggerOptions(config, logger) }),
    // One line per request instead of Fastify's two, written by http/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // Over the limit: 413 PAYLOAD_TOO_LARGE, before the body is buffered (http/errors.ts).
    bodyLimit: config.limits.bodyBytes,
    // Time allowed to receive a whole request (slow clients hold no connection forever): 408.
    requestTimeout: config.limits.requestTimeoutMs,
    http: slowClientLimits(config.limits.requestTimeoutMs),
    // On close, keep-alive sockets with no request in flight are closed at once (those with one get
    // `Connection: close` on their answer: below); Fastify's default on Node >= 18.2, stated.
    forceCloseConnections: 'idle',
    // The router's refusals (an over-long path parameter, a URL that does not decode) in the Error
    // shape with the usual headers, not Fastify's own body (http/errors.ts).
    frameworkErrors: frameworkErrorHandler((request, reply) => {
      reply.header('x-request-id', request.id);
      securityHeaders?.(request, reply);
    }),
    // A number of hops as proxy-addr's own function for it (Fastify accepts a number, its types do not).
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy,
    // A caller's X-Request-Id is kept when it is sane, so one id follows a request across services.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    },
  });
  // First of all hooks: a WebSocket upgrade refused by any later hook still closes its socket.
  registerUpgradeGuard(app, config.limits.requestTimeoutMs);
  // Next: the request's read scope (read replicas: http/read-scope.ts).
  const readScope = db.noteWrite ? registerReadScope(app, db.noteWrite) : null;
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (tracing) registerSpanRouteNames(app);
  registerRequestLog(app);
  // Shutting down (app.close(), main.ts): a request still in flight is answered, then its connection
  // closed, so that no keep-alive socket holds the process until keepAliveTimeout. (Node's
  // server.close() closes the sockets idle at that moment only; those busy then become idle later.)
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  registerErrorHandlers(app);
  // Request bodies are JSON or nothing: a text/plain, form or multipart POST is 415
  // UNSUPPORTED_MEDIA_TYPE before anything runs. This is half of the CSRF rule (docs/clients.md):
  // a browser sends those types cross-site without a preflight; it cannot send JSON that way.
  app.removeContentTypeParser('text/plain');
  // gzip or br for every answer over 1 KiB, as Accept-Encoding asks (GraphQL, REST, /openapi.json).
  await registerCompression(app);
  await registerCors(app, config.cors);
  // Before any route: @fastify/swagger collects routes as they are added.
  await registerOpenApi(app);

  // Authenticated keys are cached while this process LISTENs for key changes (api-key.cache.ts).
  const apiKeyCache = await startApiKeyCache(db, { ttlMs: config.apiKeys.cacheTtlMs }, app.log);
  if (apiKeyCache) app.addHook('onClose', apiKeyCache.stop);
  const services = createServices(db, { apiKeyCache: apiKeyCache?.cache });
  // Built once the schema exists (below); the metrics read its tallies at scrape time.
  let trustedDocuments: TrustedDocuments | null = null;
  let graphqlCache: GraphQLCache | null = null;
  // Prometheus metrics on their own port (METRICS_PORT), never on this one (telemetry/metrics.ts).
  const metrics =
    config.metrics.port > 0
      ? createMetrics({
          maxOperationNames: config.metrics.maxOperationNames,
          deprecatedRoute: PET_BY_ID_URL,
          pool: db.pool ? () => db.pool : undefined,
          pools: db.pools,
          apiKeyCache: apiKeyCache ? () => apiKeyCache.cache.stats : undefined,
          trustedDocuments: config.trustedDocuments.mode !== 'off' ? () => trustedDocuments?.counts : undefined,
          responseCache: config.cache.responseTtlS > 0 ? () => graphqlCache?.store?.stats : undefined,
        })
      : null;
  metrics?.register(app, { host: config.metrics.host, port: config.metrics.port });
  // helmet's defaults on every response (http/security-headers.ts); the Sandbox page at GET /graphql
  // brings its own nonce-based CSP instead (see the route below).
  if (config.securityHeaders) securityHeaders = registerSecurityHeaders(app);
  // A missing or malformed Host is 400, before anything reads it (and with the headers above).
  registerHostCheck(app);
  // Order matters, all three run on onRequest before the body is read: who is calling as far as is
  // known without the database, then the rate limit (every request counted before any credential
  // lookup), then the lookup, 401 for a bad credential and the REST route's scope (auth.hooks.ts).
  // Access tokens (AUTH_JWT_*, AUTH_DEV_TOKENS): nothing is fetched from the provider here, so a
  // provider that is down never stops the start (src/modules/auth/access-token.ts).
  const tokens = await createTokenVerifier(config.auth, app.log);
  registerCallerResolution(app, services.apiKeys, tokens);
  const limiter = await registerRateLimit(app, config);
  // Read-your-writes across processes: the window in the rate limit's Redis (db/read-routing.ts).
  if (readScope && limiter.redis) {
    readScope.share(
      new SharedReadYourWrites(
        limiter.redis,
        `${config.rateLimit.redisPrefix}ryw:`,
        config.database.kind === 'postgres' ? (config.database.readYourWritesMs ?? 5_000) : 0,
        (msg, err) => app.log.warn({ err: err instanceof Error ? { message: err.message } : undefined }, msg),
      ),
    );
  }
  app.addHook('onRequest', limiter.limit);
  registerAccessControl(app, services.apiKeys, limiter.chargeKey);

  await app.register(healthRoutes, { db, rateLimitStore: limiter.state, timeoutMs: config.readinessTimeoutMs });
  await app.register(landingRoutes, { explorer: config.graphql.explorer !== 'off' });

  // The REST shim for legacy clients.
  const petsLifecycle: Lifecycle = { ...config.rest.petsPath, successorUrl: '/graphql' };
  registerDeprecatedPath(app, PET_BY_ID_URL, petsLifecycle, clock);
  await app.register(petRoutes, { services, lifecycle: petsLifecycle });
  await app.register(orderRoutes, { services });
  await registerDocs(app);

  if (config.graphql.explorer !== 'off') await registerExplorerAssets(app);
  const built = await createSchema({ federation: config.graphql.federation });
  const schema = transformSchema ? transformSchema(built, services) : built;
  // Trusted documents (policy/trusted-documents.ts): read now, so a bad manifest stops the start.
  if (config.trustedDocuments.mode !== 'off') {
    try {
      trustedDocuments = new TrustedDocuments({
        ...config.trustedDocuments,
        mode: config.trustedDocuments.mode,
        schema,
        log: app.log,
      });
    } catch (error) {
      if (error instanceof TrustedDocumentsError) throw new StartupError(`TRUSTED_DOCUMENTS_FILE: ${error.message}`);
      throw error;
    }
    app.log.info(
      { mode: trustedDocuments.mode, documents: trustedDocuments.size, files: config.trustedDocuments.files },
      'trusted documents read',
    );
  }
  app.decorate('trustedDocuments', trustedDocuments);
  // Fair use by cost (RATE_LIMIT_COST_BUDGET): GraphQL operations charged their cost in points.
  const limits = createLimits(config.limits, {
    // Listed trusted documents skip the cost check (they were checked when the list was read).
    exempt: trustedDocuments ? (document) => trustedDocuments!.isTrusted(document) : undefined,
  });
  const costBudget = config.rateLimit.costBudget
    ? createCostBudget(
        config.rateLimit.costBudget,
        config.rateLimit.windowMs,
        createPointsStore(config.rateLimit.windowMs, limiter.redis, `${config.rateLimit.redisPrefix}cost:`),
        limits,
        schema,
        trustedDocuments ? (operation) => trustedDocuments!.listedDocument(operation) : undefined,
      )
    : null;
  if (costBudget) app.decorateRequest('batchCostCharge', null);
  // Cache headers of GraphQL answers and the response cache (graphql/response-cache.ts, docs/caching.md).
  // With a cost budget every answer reports its caller's budget (`extensions.cost`): none is shared.
  graphqlCache = await createGraphQLCache(
    { ...config.cache, redisUrl: config.rateLimit.redisUrl, perCaller: costBudget !== null },
    db,
    app.log,
  );
  app.addHook('onClose', graphqlCache.stop);
  app.decorateRequest('responseCacheMiss', null);
  const apollo = await createApollo(config, {
    schema,
    limits,
    trustedDocuments,
    plugins: [
      cachePolicyPlugin({ schema, onWrite: graphqlCache.invalidate }),
      ...(costBudget ? [costBudget.plugin] : []),
      ...(db.noteWrite ? [readRoutingPlugin()] : []),
      ...(metrics ? [metrics.apolloPlugin()] : []),
      ...(tracing ? [graphqlTracingPlugin()] : []),
    ],
    traceResolvers: tracing && config.tracing.resolverSpans,
  });
  const graphqlHandler = fastifyApolloHandler<GraphQLContext>(apollo, {
    context: async (request) =>
      linkGraphQLContext(request, createContext(services, request, new Reads(services, request.caller))),
  });
  app.addHook('onClose', async () => apollo.stop());
  // Subscriptions: graphql-ws on GET /graphql upgraded to a WebSocket (src/subscriptions/subscriptions.ts),
  // fed by the database's store events through this process's one LISTEN on their channel.
  const events = await startStoreEvents(db, app.log);
  app.addHook('onClose', events.stop);
  const subscriptions = await registerSubscriptions(app, {
    config,
    services,
    schema,
    limits,
    costBudget,
    events,
    limiter,
    apiKeyCache: apiKeyCache?.cache,
    trustedDocuments,
    tokens,
  });
  app.decorate('subscriptions', subscriptions);
  if (metrics) {
    // graphql_subscriptions_open, read at each scrape (telemetry/metrics.ts).
    reportOpenSubscriptions(() => subscriptions.subscriptionCount);
    app.addHook('onClose', async () => reportOpenSubscriptions(null));
  }
  const graphqlRoute = {
    url: '/graphql',
    // The explorer page sets a Content-Security-Policy of its own (a <meta> allowing Apollo's Sandbox
    // CDN and frame, graphql/explorer.ts); helmet's header policy would block them, so /graphql goes
    // without the CSP header while the explorer is on (its JSON answers need none).
    ...(config.graphql.landingPage ? { config: { contentSecurityPolicy: false } } : {}),
    // A batch counts each of its operations against the rate limit (graphql/batching.ts); with trusted
    // documents on, each operation is checked against the list before any is parsed; with a cost
    // budget, the batch is charged as a whole before any operation runs (cost-budget.ts).
    preHandler: [
      batchGuard(config.graphql.batchMax, limiter),
      ...(trustedDocuments ? [trustedDocuments.guard] : []),
      ...(costBudget ? [costBudget.chargeBatch] : []),
      // Last: a hit is answered only once every check above has passed.
      graphqlCache.lookup,
    ],
    // Cache-Control, Vary, ETag and 304 of every answer; misses stored (graphql/response-cache.ts).
    onSend: graphqlCache.onSend,
    handler: tracing ? traceGraphQLHandler(graphqlHandler) : graphqlHandler,
  };
  app.route({ ...graphqlRoute, method: ['POST', 'OPTIONS'] });
  // @fastify/websocket takes WebSocket upgrades on GET routes only.
  app.route({
    ...graphqlRoute,
    method: 'GET',
    preValidation: subscriptions.checkUpgrade,
    wsHandler: subscriptions.wsHandler,
  });
  return app;
}
