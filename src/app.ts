/**
 * Builds the HTTP server: one Fastify instance serving GraphQL at /graphql (Apollo), the health
 * checks, and the REST shim (GET /pets/{petId}, GET /store/orders, their OpenAPI document at
 * /openapi.json and reference page at /docs). Starting and stopping the process is main.ts's job.
 */
import crypto from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import type { Config } from './config';
import { systemClock, type Clock } from './common/clock';
import type { Database } from './db/database';
import { createApollo } from './graphql/apollo';
import { createContext, type GraphQLContext } from './graphql/context';
import { registerErrorHandlers } from './http/errors';
import { healthRoutes } from './http/health.routes';
import { registerCors } from './http/cors';
import { registerDeprecatedPath, type Lifecycle } from './http/deprecation';
import { registerDocs } from './http/docs';
import { registerOpenApi } from './http/openapi';
import { orderRoutes } from './modules/orders/order.routes';
import { PET_BY_ID_URL, petRoutes } from './modules/pets/pet.routes';
import { createServices } from './services';

export interface BuildAppOptions {
  config: Config;
  db: Database;
  /** Pino options or a logger instance; tests pass `false`. */
  logger?: boolean | Record<string, unknown>;
  /** "Now" for time-dependent behaviour (the sunset of GET /pets/{petId}); tests pass a fixed one. */
  clock?: Clock;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp({ config, db, logger, clock = systemClock }: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: logger ?? {
      level: config.logLevel,
      // Credentials never reach the logs.
      redact: ['req.headers.authorization', 'req.headers.cookie'],
    },
    bodyLimit: BODY_LIMIT_BYTES,
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
  registerErrorHandlers(app);
  await registerCors(app, config.cors);
  // Before any route: @fastify/swagger collects routes as they are added.
  await registerOpenApi(app);

  const services = createServices(db.prisma);
  await app.register(healthRoutes, { db });

  // The REST shim for legacy clients.
  const petsLifecycle: Lifecycle = { ...config.rest.petsPath, successorUrl: '/graphql' };
  registerDeprecatedPath(app, PET_BY_ID_URL, petsLifecycle, clock);
  await app.register(petRoutes, { services, lifecycle: petsLifecycle });
  await app.register(orderRoutes, { services });
  await registerDocs(app);

  const apollo = await createApollo(config);
  app.addHook('onClose', async () => apollo.stop());
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: fastifyApolloHandler<GraphQLContext>(apollo, {
      context: async (request) => createContext(services, request),
    }),
  });
  return app;
}
