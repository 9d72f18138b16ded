/**
 * The GraphQL endpoint: the schema served, the trusted documents, the limits and the cost budget,
 * the HTTP cache of answers, Apollo at POST /graphql (and GET, for queries and the explorer page),
 * and graphql-ws subscriptions on GET /graphql upgraded to a WebSocket (subscriptions/subscriptions.ts).
 */
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyBaseLogger, FastifyInstance, preHandlerHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { Database } from '../db/database';
import { StartupError } from '../db/startup';
import type { RateLimiter } from '../http/rate-limit';
import { linkGraphQLContext } from '../http/request-log';
import { createPointsStore } from '../http/points-store';
import type { TokenVerifier } from '../modules/auth/access-token';
import type { ApiKeyCache } from '../modules/auth/api-key.cache';
import { createContext, type GraphQLContext } from '../modules/context';
import { startStoreEvents } from '../modules/events/store-events';
import type { Services } from '../modules/services';
import { createPersistedQueries, type PersistedQueries } from '../common/graphql/persisted-queries';
import { batchGuard } from '../policy/batching';
import { createCostBudget, type CostBudget } from '../policy/cost-budget';
import { createLimits, type GraphQLLimits } from '../policy/limits';
import { TrustedDocuments, TrustedDocumentsError } from '../policy/trusted-documents';
import { Reads } from '../read/reads';
import { createSchema } from '../schema/schema';
import { subscriptionsPlugin, type SubscriptionsOptions } from '../subscriptions/subscriptions';
import { reportOpenSubscriptions, type Metrics } from '../telemetry/metrics';
import { createApollo } from './apollo';
import { cachePolicyStep } from './cache-policy';
import { explorerOffNotice, registerExplorerAssets, unacceptableAnswer } from './explorer';
import { graphqlTracingPlugin, traceGraphQLHandler } from './graphql-tracing';
import { readRoutingPlugin } from './read-routing.plugin';
import { createGraphQLCache, schemaFingerprint, type GraphQLCache } from './response-cache';

export interface GraphQLEndpointOptions {
  graphql: Config['graphql'];
  limits: Config['limits'];
  /** The rate limit's settings: the cost budget (RATE_LIMIT_COST_BUDGET), its window, and Redis. */
  rateLimit: Config['rateLimit'];
  /** Cache headers and the response cache (docs/caching.md). */
  cache: Config['cache'];
  trustedDocuments: Config['trustedDocuments'];
  /** The subscriptions' own settings (SUBSCRIPTION_*, CORS_ORIGINS, SHUTDOWN_TIMEOUT_MS). */
  subscriptions: Pick<SubscriptionsOptions, 'settings' | 'corsOrigins' | 'shutdownTimeoutMs'>;
  /** Tracing on (OTEL_*), and a span per resolver call (GRAPHQL_RESOLVER_SPANS). */
  tracing: { enabled: boolean; resolverSpans: boolean };
  db: Database;
  services: Services;
  limiter: RateLimiter;
  tokens: TokenVerifier | null;
  apiKeyCache?: ApiKeyCache;
  /** The Prometheus metrics (METRICS_PORT), null when off. */
  metrics: Metrics | null;
  /** Replaces the schema served (tests only: BuildAppOptions.transformSchema). */
  transformSchema?: (schema: GraphQLSchema, services: Services) => GraphQLSchema;
  /** Hands the HTTP cache, once made, to the metrics registered before it (they read it at scrape time). */
  onCache?: (cache: GraphQLCache) => void;
}

/** The policy of every operation, HTTP and WebSocket alike: built once the schema exists. */
interface Policy {
  schema: GraphQLSchema;
  trustedDocuments: TrustedDocuments | null;
  limits: GraphQLLimits;
  costBudget: CostBudget | null;
  /** Apollo's automatic persisted queries, which the cost budget reads; null when APQ is off (enforce). */
  persistedQueries: PersistedQueries | null;
}

/**
 * Trusted documents (policy/trusted-documents.ts), null when TRUSTED_DOCUMENTS is off: read now, so
 * a bad manifest stops the start.
 */
function readTrustedDocuments(
  settings: Config['trustedDocuments'],
  schema: GraphQLSchema,
  log: FastifyBaseLogger,
): TrustedDocuments | null {
  if (settings.mode === 'off') return null;
  let trustedDocuments: TrustedDocuments;
  try {
    trustedDocuments = new TrustedDocuments({ ...settings, mode: settings.mode, schema, log });
  } catch (error) {
    if (error instanceof TrustedDocumentsError) throw new StartupError(`TRUSTED_DOCUMENTS_FILE: ${error.message}`);
    throw error;
  }
  log.info(
    { mode: trustedDocuments.mode, documents: trustedDocuments.size, files: settings.files },
    'trusted documents read',
  );
  return trustedDocuments;
}

/**
 * The schema, the trusted list, the limits and the cost budget. Decorates the app with the trusted
 * list (main.ts reloads it on SIGHUP) and, with a cost budget, requests with their batch's charge.
 */
async function buildPolicy(app: FastifyInstance, options: GraphQLEndpointOptions): Promise<Policy> {
  const { graphql, rateLimit, services, transformSchema } = options;
  const built = await createSchema({ federation: graphql.federation });
  const schema = transformSchema ? transformSchema(built, services) : built;
  const trustedDocuments = readTrustedDocuments(options.trustedDocuments, schema, app.log);
  app.decorate('trustedDocuments', trustedDocuments);
  // Fair use by cost (RATE_LIMIT_COST_BUDGET): GraphQL operations charged their cost in points.
  const limits = createLimits(options.limits, {
    // Listed trusted documents skip the cost check (they were checked when the list was read).
    exempt: trustedDocuments ? (document) => trustedDocuments.isTrusted(document) : undefined,
  });
  // APQ is off in enforce mode (apollo.ts); otherwise its texts are where a batch's charge can read them.
  const persistedQueries = trustedDocuments?.mode === 'enforce' ? null : createPersistedQueries();
  const costBudget = rateLimit.costBudget
    ? createCostBudget(
        rateLimit.costBudget,
        rateLimit.windowMs,
        createPointsStore(rateLimit.windowMs, options.limiter.redis, `${rateLimit.redisPrefix}cost:`),
        limits,
        schema,
        trustedDocuments ? (operation) => trustedDocuments.listedDocument(operation) : () => null,
        { inputDepth: options.limits.inputDepth, introspection: graphql.introspection },
        persistedQueries ? (hash) => persistedQueries.text(hash) : () => undefined,
      )
    : null;
  if (costBudget) app.decorateRequest('batchCostCharge', null);
  return { schema, trustedDocuments, limits, costBudget, persistedQueries };
}

/** Apollo over the schema with the policy's plugins; stopped when the app closes. */
async function startApollo(
  app: FastifyInstance,
  { schema, limits, costBudget, trustedDocuments, persistedQueries }: Policy,
  graphqlCache: GraphQLCache,
  { graphql, limits: limitsConfig, db, metrics, tracing }: GraphQLEndpointOptions,
) {
  const apollo = await createApollo(
    { graphql, limits: limitsConfig },
    {
      schema,
      limits,
      trustedDocuments,
      persistedQueries,
      // The operations' metrics, last of the steps: their willSendResponse runs after the others'.
      steps: [
        cachePolicyStep({ schema, onWrite: graphqlCache.invalidate }),
        ...(metrics ? [metrics.operationStep] : []),
      ],
      plugins: [
        ...(costBudget ? [costBudget.plugin] : []),
        ...(db.noteWrite ? [readRoutingPlugin()] : []),
        ...(tracing.enabled ? [graphqlTracingPlugin()] : []),
      ],
      traceResolvers: tracing.enabled && tracing.resolverSpans,
    },
  );
  return apollo;
}

/**
 * Subscriptions: graphql-ws on GET /graphql upgraded to a WebSocket (subscriptions/subscriptions.ts),
 * fed by the database's store events through this process's one LISTEN on their channel.
 */
async function registerSubscriptionsFor(
  app: FastifyInstance,
  policy: Policy,
  graphqlCache: GraphQLCache,
  options: GraphQLEndpointOptions,
) {
  const events = await startStoreEvents(options.db, app.log, graphqlCache.beforeEvents ?? undefined);
  app.addHook('onClose', events.stop);
  const { graphql, limits, services, limiter, apiKeyCache, tokens, metrics } = options;
  await app.register(subscriptionsPlugin, {
    ...options.subscriptions,
    limitsConfig: limits,
    introspection: graphql.introspection,
    ...policy,
    services,
    events,
    limiter,
    apiKeyCache,
    tokens,
  });
  if (metrics) {
    // graphql_subscriptions_open, read at each scrape (telemetry/metrics.ts).
    reportOpenSubscriptions(() => app.subscriptions.subscriptionCount);
    app.addHook('onClose', async () => reportOpenSubscriptions(null));
  }
}

/** /graphql's route options shared by its POST and GET routes: the checks before Apollo, the cache. */
function graphqlRoute(
  { trustedDocuments, costBudget }: Policy,
  graphqlCache: GraphQLCache,
  handler: RouteOptions['handler'],
  { graphql, limiter }: GraphQLEndpointOptions,
): Omit<RouteOptions, 'method'> {
  return {
    url: '/graphql',
    // The API's security headers (http/security-headers.ts); GET sets its own below.
    config: { securityHeaders: 'api' },
    // A batch counts each of its operations against the rate limit (graphql/batching.ts); with trusted
    // documents on, each operation is checked against the list before any is parsed; with a cost
    // budget, the batch is charged as a whole before any operation runs (cost-budget.ts).
    preHandler: [
      // First: a request that accepts no GraphQL answer runs nothing (Apollo finds out after running it).
      unacceptableAnswer(graphql.landingPage),
      batchGuard(graphql.batchMax, limiter),
      ...(trustedDocuments ? [trustedDocuments.guard] : []),
      ...(costBudget ? [costBudget.chargeBatch] : []),
      // Last: a hit is answered only once every check above has passed.
      graphqlCache.lookup,
    ],
    // Cache-Control, Vary, ETag and 304 of every answer; misses stored (graphql/response-cache.ts).
    onSend: graphqlCache.onSend,
    handler,
  };
}

async function graphqlEndpoint(app: FastifyInstance, options: GraphQLEndpointOptions) {
  const { graphql, cache, rateLimit, db, services, tracing } = options;
  if (graphql.explorer !== 'off') await registerExplorerAssets(app);
  const policy = await buildPolicy(app, options);
  // Cache headers of GraphQL answers and the response cache (graphql/response-cache.ts, docs/caching.md).
  // With a cost budget every answer reports its caller's budget (`extensions.cost`): none is shared.
  const graphqlCache = await createGraphQLCache(
    {
      ...cache,
      redisUrl: rateLimit.redisUrl,
      perCaller: policy.costBudget !== null,
      fingerprint: schemaFingerprint(policy.schema, graphql.introspection, {
        depth: options.limits.depth,
        aliases: options.limits.aliases,
        directives: options.limits.directives,
        tokens: options.limits.tokens,
        cost: options.limits.cost,
        inputDepth: options.limits.inputDepth,
      }),
    },
    db,
    app.log,
  );
  options.onCache?.(graphqlCache);
  app.addHook('onClose', graphqlCache.stop);
  app.decorateRequest('responseCacheMiss', null);
  const apollo = await startApollo(app, policy, graphqlCache, options);
  const graphqlHandler = fastifyApolloHandler<GraphQLContext>(apollo, {
    context: async (request) =>
      linkGraphQLContext(request, createContext(services, request, new Reads(services, request.caller))),
  });
  app.addHook('onClose', async () => apollo.stop());
  await registerSubscriptionsFor(app, policy, graphqlCache, options);
  const route = graphqlRoute(
    policy,
    graphqlCache,
    tracing.enabled ? traceGraphQLHandler(graphqlHandler) : graphqlHandler,
    options,
  );
  // POST only: an OPTIONS that is no CORS preflight (the CORS plugin answers those) is the app's 405,
  // like any method /graphql does not serve. Routed here, it went through the checks above, and a
  // batch in its body was counted and charged to the cost budget for Apollo's 405.
  app.route({ ...route, method: 'POST' });
  // @fastify/websocket takes WebSocket upgrades on GET routes only.
  app.route({
    ...route,
    method: 'GET',
    // No HEAD: Apollo answers a GraphQL request over GET or POST only (a HEAD was its 405 with
    // `Allow: GET, POST` while a PUT's 405 listed HEAD); without the route it is the app's 405.
    exposeHeadRoute: false,
    // The explorer page sets a Content-Security-Policy of its own (a <meta> allowing Apollo's Sandbox
    // CDN and frame, graphql/explorer.ts); a CSP header would block them, so while the explorer is on,
    // GET /graphql gets a document's headers without the CSP header (its JSON answers too: the route
    // cannot know which it answers before Apollo has run).
    config: { securityHeaders: options.graphql.landingPage ? 'document-own-csp' : 'api' },
    // Without the explorer, a browser opening the URL is told which setting gives one.
    ...(options.graphql.landingPage
      ? {}
      : { preHandler: [explorerOffNotice, ...(route.preHandler as preHandlerHookHandler[])] }),
    preValidation: app.subscriptions.checkUpgrade,
    wsHandler: app.subscriptions.wsHandler,
  });
}

/**
 * fastify-plugin: the endpoint decorates the app (`trustedDocuments`, `subscriptions`: main.ts and
 * the metrics read them) and its requests, its hooks close Apollo, the cache and the event stream
 * with the app, and @fastify/websocket (registered by the subscriptions) must be the app's.
 */
export const graphqlPlugin = fp(graphqlEndpoint, { name: 'graphql' });
