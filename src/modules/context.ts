import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './services';
import type { Caller } from './auth/api-key.service';
import type { GraphQLResolveInfo } from 'graphql';
import type { ObjectTypeName } from '../common/object-types';
import type { StoreEvent } from './events/store-events';

/** A charge for one caller, as a batch's preHandler made it (cost-budget.ts; the context carries it to each operation). */
export interface BatchCharge {
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** The automatic persisted queries (by hash) the batch was charged for with the rest. */
  persisted: ReadonlySet<string>;
}

type Row = Record<string | symbol, unknown>;

/**
 * Every read a resolver makes, through the read compiler (its implementation: Reads, in the read
 * compiler's floor, src/read/reads.ts). Declared here, where resolvers find it, so that
 * the domain modules never import the compiler that stands above them.
 */
export interface ReadPath {
  /** A root query field's value, with every relation selected below it, in one statement. */
  root(info: GraphQLResolveInfo): Promise<unknown>;
  /** `Me.orders`: the caller's own orders, compiled like a root field (no row of its own above). */
  meOrders(info: GraphQLResolveInfo): Promise<unknown>;
  /** What the statement that read `parent` read for this relation field of it. */
  compiled(parent: object, info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'parentType' | 'fieldName'>): unknown;
  /** Objects of a registry type by key (null where absent), relations below compiled in. */
  byKeys(info: GraphQLResolveInfo, type: ObjectTypeName, keys: readonly bigint[]): Promise<Array<Row | null>>;
  /** `row` (not read by a compiled statement) with the relations selected below it. */
  relationsOf(info: GraphQLResolveInfo, type: ObjectTypeName, row: Row): Promise<Row>;
}

/** What every resolver gets: built fresh for each request. */
export interface GraphQLContext {
  requestId: string;
  log: FastifyBaseLogger;
  /** The API key or signed-in subject, or null (anonymous); resolved once per request (auth.hooks.ts). */
  caller: Caller | null;
  services: Services;
  /** Every read of the request, through the read compiler (src/read/reads.ts). */
  reads: ReadPath;
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
   * Subscriptions only (graphql-ws, src/subscriptions/subscriptions.ts): opens this connection's stream of
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
  /** The request's reads (`new Reads(services, request.caller)`, src/read/reads.ts). */
  reads: ReadPath,
): GraphQLContext {
  const key = request.headers['idempotency-key'];
  return {
    requestId: request.id,
    log: request.log,
    caller: request.caller,
    services,
    reads,
    idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
    batched: Array.isArray(request.body),
    clientAddress: request.ip,
    batchCostCharge: request.batchCostCharge ?? null,
  };
}
