import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services';
import type { Caller } from '../modules/auth/api-key.service';
import type { BatchCharge } from './cost-budget';
import type { StoreEvent } from '../modules/events/store-events';
import { Reads } from './planner/reads';

/** What every resolver gets: built fresh for each request. */
export interface GraphQLContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The authenticated API key, or null (anonymous); resolved once per request (auth.hooks.ts). */
  caller: Caller | null;
  services: Services;
  /** Every read of the request, through the read compiler (planner/reads.ts). */
  reads: Reads;
  /**
   * The `Idempotency-Key` header as sent (repeated headers joined by Node), or undefined. Only
   * placeOrder reads it; its service validates it, so a malformed key fails that mutation alone.
   */
  idempotencyKey: string | undefined;
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
): GraphQLContext {
  const key = request.headers['idempotency-key'];
  return {
    requestId: request.id,
    log: request.log,
    caller: request.caller,
    services,
    reads: new Reads(services, request.caller),
    idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
    batched: Array.isArray(request.body),
    clientAddress: request.ip,
    batchCostCharge: request.batchCostCharge ?? null,
  };
}
