/**
 * Builds the HTTP server: one Fastify instance serving GraphQL at /graphql (Apollo), the health
 * checks, and the REST shim (GET /pets/{petId}, GET /store/orders, their OpenAPI document at
 * /openapi.json and reference page at /docs). Starting and stopping the process is main.ts's job.
 */
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { Config } from './config';
import { systemClock, type Clock } from './common/clock';
import type { Database } from './db/database';
import { createApollo } from './graphql/apollo';
import { registerExplorerAssets } from './graphql/explorer';
import { createContext, type GraphQLContext } from './graphql/context';
import { registerErrorHandlers } from './http/errors';
import { linkGraphQLContext, loggerOptions, registerRequestLog } from './http/request-log';
import { healthRoutes } from './http/health.routes';
import { registerRateLimit } from './http/rate-limit';
import { registerSecurityHeaders } from './http/security-headers';
import { startApiKeyCache } from './modules/auth/api-key.cache';
import { registerAccessControl, registerCallerResolution } from './modules/auth/auth.hooks';
import { registerCors } from './http/cors';
import { registerCompression } from './http/compression';
import { batchGuard } from './graphql/batching';
import { registerDeprecatedPath, type Lifecycle } from './http/deprecation';
import { registerDocs } from './http/docs';
import { registerOpenApi } from './http/openapi';
import { orderRoutes } from './modules/orders/order.routes';
import { PET_BY_ID_URL, petRoutes } from './modules/pets/pet.routes';
import { createServices } from './services';

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
}

export { LOG_REDACT } from './http/request-log';
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp({ config, db, logger, loggerInstance, clock = systemClock }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: logger === false ? false : loggerOptions(config, logger) }),
    // One line per request instead of Fastify's two, written by http/request-log.ts.
    logController: new LogController({ disableRequestLogging: true }),
    // Over the limit: 413 PAYLOAD_TOO_LARGE, before the body is buffered (http/errors.ts).
    bodyLimit: config.limits.bodyBytes,
    // Time allowed to receive a whole request (slow clients hold no connection forever): 408.
    requestTimeout: config.limits.requestTimeoutMs,
    trustProxy: config.trustProxy,
    // A caller's X-Request-Id is kept when it is sane, so one id follows a request across services.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerRequestLog(app);
  registerErrorHandlers(app);
  // Request bodies are JSON or nothing: a text/plain, form or multipart POST is 415
  // UNSUPPORTED_MEDIA_TYPE before anything runs. This is half of the CSRF rule (README, "Clients"):
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
  // helmet's defaults on every response (http/security-headers.ts); the Sandbox page at GET /graphql
  // brings its own nonce-based CSP instead (see the route below).
  if (config.securityHeaders) registerSecurityHeaders(app);
  // Order matters, all three run on onRequest before the body is read: who is calling, then the
  // rate limit (keyed by that caller), then 401 for a bad credential and the REST route's scope.
  registerCallerResolution(app, services.apiKeys);
  await registerRateLimit(app, config);
  registerAccessControl(app);

  await app.register(healthRoutes, { db });

  // The REST shim for legacy clients.
  const petsLifecycle: Lifecycle = { ...config.rest.petsPath, successorUrl: '/graphql' };
  registerDeprecatedPath(app, PET_BY_ID_URL, petsLifecycle, clock);
  await app.register(petRoutes, { services, lifecycle: petsLifecycle });
  await app.register(orderRoutes, { services });
  await registerDocs(app);

  if (config.graphql.explorer !== 'off') await registerExplorerAssets(app);
  const apollo = await createApollo(config);
  app.addHook('onClose', async () => apollo.stop());
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    // The explorer page sets a Content-Security-Policy of its own (a <meta> allowing Apollo's Sandbox
    // CDN and frame, graphql/explorer.ts); helmet's header policy would block them, so /graphql goes
    // without the CSP header while the explorer is on (its JSON answers need none).
    ...(config.graphql.landingPage ? { config: { contentSecurityPolicy: false } } : {}),
    // A batch counts each of its operations against the rate limit (graphql/batching.ts).
    preHandler: batchGuard(app, config.graphql.batchMax),
    handler: fastifyApolloHandler<GraphQLContext>(apollo, {
      context: async (request) => linkGraphQLContext(request, createContext(services, request, { planReads: config.readPlanner })),
    }),
  });
  return app;
}
