import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services';
import type { Caller } from '../modules/auth/api-key.service';
import { createCategoryLoaders } from '../modules/categories/category.loaders';
import { createInventoryLoaders } from '../modules/inventory/inventory.loaders';
import { createOrderLoaders } from '../modules/orders/order.loaders';
import { createPetLoaders } from '../modules/pets/pet.loaders';

/** Per-request DataLoaders: every relation a field resolver follows goes through one of these. */
export function createLoaders(services: Services) {
  return {
    ...createCategoryLoaders(services),
    ...createPetLoaders(services),
    ...createInventoryLoaders(services),
    ...createOrderLoaders(services),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** What every resolver gets: built fresh for each request. */
export interface GraphQLContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The authenticated API key, or null (anonymous); resolved once per request (auth.hooks.ts). */
  caller: Caller | null;
  services: Services;
  loaders: Loaders;
  /**
   * The `Idempotency-Key` header as sent (repeated headers joined by Node), or undefined. Only
   * placeOrder reads it; its service validates it, so a malformed key fails that mutation alone.
   */
  idempotencyKey: string | undefined;
  /** Root lists read their relations in their own statement (src/graphql/planner); off: loaders only. */
  planReads: boolean;
}

export function createContext(
  services: Services,
  request: {
    id: string;
    log: FastifyBaseLogger;
    caller: Caller | null;
    headers: Record<string, string | string[] | undefined>;
  },
  options: { planReads?: boolean } = {},
): GraphQLContext {
  const key = request.headers['idempotency-key'];
  return {
    requestId: request.id,
    log: request.log,
    caller: request.caller,
    services,
    loaders: createLoaders(services),
    idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
    planReads: options.planReads ?? true,
  };
}
