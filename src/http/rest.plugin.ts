/**
 * The REST shim for legacy clients: GET /pets/{petId} (deprecated, with its lifecycle headers and,
 * from its sunset on, 410 GONE), GET /store/orders, and their reference page at /docs.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../common/clock';
import type { RestConfig } from '../config';
import { orderRoutes } from '../modules/orders/order.routes';
import { PET_BY_ID_URL, petRoutes } from '../modules/pets/pet.routes';
import type { Services } from '../modules/services';
import { registerDeprecatedPath, type Lifecycle } from './deprecation';
import { registerDocs } from './docs';

export interface RestOptions {
  services: Services;
  /** The deprecation lifecycle of GET /pets/{petId} (REST_PETS_*). */
  petsPath: RestConfig['petsPath'];
  /** "Now", for the sunset. */
  clock: Clock;
}

/** GET /pets/{petId}'s lifecycle (REST_PETS_*): its dates and docs, and GraphQL as its successor. */
export const petsLifecycle = (petsPath: RestConfig['petsPath']): Lifecycle => ({
  ...petsPath,
  successorUrl: '/graphql',
});

async function rest(app: FastifyInstance, { services, petsPath, clock }: RestOptions) {
  const lifecycle = petsLifecycle(petsPath);
  registerDeprecatedPath(app, PET_BY_ID_URL, lifecycle, clock);
  // The routes themselves are encapsulated plugins of their own (modules/*/*.routes.ts).
  await app.register(petRoutes, { services, lifecycle });
  await app.register(orderRoutes, { services });
  await registerDocs(app);
}

/**
 * fastify-plugin: the deprecation hooks must be the root's, matched on the path, so that answers
 * given outside the route (405 for another method, a refusal by an earlier hook) carry the lifecycle
 * headers too (http/deprecation.ts; the router's own refusals get them in app.ts's frameworkErrors);
 * @fastify/swagger-ui's /docs routes are the app's like before.
 */
export const restPlugin = fp(rest, { name: 'rest' });
