import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services';
import type { Caller } from '../modules/auth/caller';
import type { BatchCharge } from './cost-budget';
import type { StoreEvent } from '../modules/events/store-events';
import { createCategoryLoaders } from '../modules/categories/category.loaders';
import { createInventoryLoaders } from '../modules/inventory/inventory.loaders';
import { createOrderLoaders } from '../modules/orders/order.loaders';
import { createPetLoaders } from '../modules/pets/pet.loaders';

type CategoryLoaders = ReturnType<typeof createCategoryLoaders>;
type PetLoaders = ReturnType<typeof createPetLoaders>;
type InventoryLoaders = ReturnType<typeof createInventoryLoaders>;
type OrderLoaders = ReturnType<typeof createOrderLoaders>;

/**
 * Per-request DataLoaders: every relation a field resolver follows goes through one of these. Each
 * module's loaders are built on first use, so a request that follows no relation (`pet(id)`, a
 * mutation, REST) builds none of them.
 */
export class Loaders {
  private category?: CategoryLoaders;
  private pet?: PetLoaders;
  private inventory?: InventoryLoaders;
  private order?: OrderLoaders;

  /** `caller`: whose orders the order loaders may read (src/modules/orders/order.access.ts). */
  constructor(
    private readonly services: Services,
    private readonly caller: Caller | null,
  ) {}

  get categoryById(): CategoryLoaders['categoryById'] {
    return (this.category ??= createCategoryLoaders(this.services)).categoryById;
  }
  get petById(): PetLoaders['petById'] {
    return (this.pet ??= createPetLoaders(this.services)).petById;
  }
  get petsByCategory(): PetLoaders['petsByCategory'] {
    return (this.pet ??= createPetLoaders(this.services)).petsByCategory;
  }
  get petCountByCategory(): PetLoaders['petCountByCategory'] {
    return (this.pet ??= createPetLoaders(this.services)).petCountByCategory;
  }
  get inventoryByPetId(): InventoryLoaders['inventoryByPetId'] {
    return (this.inventory ??= createInventoryLoaders(this.services)).inventoryByPetId;
  }
  get orderById(): OrderLoaders['orderById'] {
    return (this.order ??= createOrderLoaders(this.services, this.caller)).orderById;
  }
  get ordersByPet(): OrderLoaders['ordersByPet'] {
    return (this.order ??= createOrderLoaders(this.services, this.caller)).ordersByPet;
  }
  get orderCountByPet(): OrderLoaders['orderCountByPet'] {
    return (this.order ??= createOrderLoaders(this.services, this.caller)).orderCountByPet;
  }
}

export function createLoaders(services: Services, caller: Caller | null): Loaders {
  return new Loaders(services, caller);
}

/** What every resolver gets: built fresh for each request. */
export interface GraphQLContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The API key or signed-in subject, or null (anonymous); resolved once per request (auth.hooks.ts). */
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
  /** The request is a batch (a JSON array of operations), answered 200 as a whole (errors.ts). */
  batched: boolean;
  /** The client's address: whose cost budget an anonymous caller spends (cost-budget.ts). */
  clientAddress?: string;
  /** The charge of the whole batch, made before any of its operations ran (cost-budget.ts). */
  batchCostCharge?: BatchCharge | null;
  /**
   * Subscriptions only (graphql-ws, src/graphql/subscriptions.ts): opens this connection's stream of
   * store events, `select` mapping each to what the subscription delivers (undefined: skip it).
   */
  openEventStream?: <T>(select: (event: StoreEvent) => T | undefined) => AsyncIterableIterator<T>;
}

export function createContext(
  services: Services,
  request: {
    id: string;
    log: FastifyBaseLogger;
    caller: Caller | null;
    headers: Record<string, string | string[] | undefined>;
    body?: unknown;
    ip?: string;
    batchCostCharge?: BatchCharge | null;
  },
  options: { planReads?: boolean } = {},
): GraphQLContext {
  const key = request.headers['idempotency-key'];
  return {
    requestId: request.id,
    log: request.log,
    caller: request.caller,
    services,
    loaders: createLoaders(services, request.caller),
    idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
    planReads: options.planReads ?? true,
    batched: Array.isArray(request.body),
    clientAddress: request.ip,
    batchCostCharge: request.batchCostCharge ?? null,
  };
}
