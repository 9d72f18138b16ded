import { z } from 'zod';
import { Prisma, type Order as OrderRow, type PrismaClient } from '../../generated/prisma/client';
import { InvalidTransitionError, NotFoundError, OutOfStockError, ValidationError } from '../../errors/app-error';
import { validate } from '../../common/validation';
import {
  MAX_PAGE_SIZE,
  pageSql,
  whereClause,
  type ListQuery,
  type PageArgs,
  type PageSql,
  type Sort,
} from '../../common/pagination';
import type { SqlReader } from '../../db/database';
import { nestedPageSql } from '../../common/nested-pages';
import { deleteExpiredKeys, fingerprint, IDEMPOTENCY_KEY_TTL_MS, idempotencyKeySchema, scopedKey } from './idempotency';
import { ConflictError } from '../../errors/app-error';
import { orderConditions, storeOwner, type OrderAccess } from './order.access';

/**
 * A Order as the API shows it: the row without its bookkeeping timestamps, which no GraphQL field or
 * REST answer outputs. Reads leave them out, so node-postgres parses no timestamp into a Date that
 * nobody reads (issue 15: 7 % of W2's CPU went to postgres-date); rows that writes return carry them
 * too, harmlessly. Nor its owner: no answer shows it (order.access.ts decides with it in SQL).
 */
export type Order = Omit<OrderRow, 'createdAt' | 'updatedAt' | 'owner'>;

export interface OrderFilterInput {
  complete?: boolean | null;
  petId?: bigint | null;
}

export interface NewOrderInput {
  petId: bigint;
  quantity: number;
  shipDate?: Date | null;
}

/** The most units one order may take (the stock itself may hold up to 1,000,000). */
export const MAX_ORDER_QUANTITY = 100;

// The ship dates an answer can write as RFC 3339 (a four-digit year, at UTC). An offset can move a
// date outside them (0001-01-01T00:00:00+01:00 is in year 0), where PostgreSQL refuses it.
const SHIP_DATE_MIN = new Date('0001-01-01T00:00:00.000Z');
const SHIP_DATE_MAX = new Date('9999-12-31T23:59:59.999Z');

const filterSchema = z.object({ complete: z.boolean().nullish(), petId: z.bigint().nullish() }).nullish();
const newOrderSchema = z.object({
  petId: z.bigint(),
  quantity: z
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(MAX_ORDER_QUANTITY, `must be at most ${MAX_ORDER_QUANTITY}`),
  shipDate: z
    .date({ error: 'must be a valid date-time' })
    .min(SHIP_DATE_MIN, 'must be in the years 0001 to 9999 (UTC)')
    .max(SHIP_DATE_MAX, 'must be in the years 0001 to 9999 (UTC)')
    .nullish(),
});

/** Order columns under the model's field names, for reads and for statements that RETURN an order. */
const ORDER_COLUMNS_TEXT = 'id, pet_id AS "petId", quantity, ship_date AS "shipDate", complete';
const ORDER_COLUMNS = Prisma.raw(ORDER_COLUMNS_TEXT);

/** Orders as rows under the model's field names, for the read compiler's lookups by key. */
export const ORDER_ROWS = { select: ORDER_COLUMNS_TEXT, from: 'orders', key: 'id' } as const;

/** Expired idempotency keys are deleted at most this often per process (they are ignored anyway). */
const KEY_CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/** Offset pages exist only for the legacy REST path; GraphQL pages by cursor. */
export const MAX_OFFSET = 2_147_483_647;
const offsetPageSchema = z.object({
  limit: z
    .number()
    .int()
    .min(1, `must be between 1 and ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `must be between 1 and ${MAX_PAGE_SIZE}`),
  offset: z.number().int().min(0, 'must be >= 0').max(MAX_OFFSET, `must be <= ${MAX_OFFSET}`),
});

export interface OffsetPage<T> {
  items: T[];
  /** Every order matching the filter, whatever the page. */
  total: number;
}

/** Orders are listed newest first. */
const newestFirst = {
  id: 'id-desc',
  keys: [{ field: 'id', column: 'id', direction: 'desc', type: 'bigint' }],
} as Sort<Order> & { keys: [{ field: 'id'; column: 'id'; direction: 'desc'; type: 'bigint' }] };

/**
 * Store orders. Placing, completing and cancelling each run in one transaction under the pet's row
 * lock (pet-lifecycle.ts): the stock movement, the order row, the pet's status and the idempotency
 * key change together or not at all.
 */
export class OrderService {
  private lastKeyCleanup = 0;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlReader,
    /** The store functions' one statement each, on the primary (Database.writer). */
    private readonly writer: SqlReader,
  ) {}

  /**
   * placeOrder: takes `quantity` (1..100) out of the pet's stock and opens an order. The stock check
   * is the conditional UPDATE itself, so no number of concurrent requests or gateway processes can
   * oversell. Unknown pet: VALIDATION_FAILED (petId); not enough stock, or the pet is pending or sold:
   * OUT_OF_STOCK. Taking the last unit makes the pet pending. With `idempotencyKey`, a retry of the same
   * request by the same caller returns the first order (see idempotency.ts). `caller` is the
   * caller's identity (`callerIdentity`): the key is scoped to it, and it is the order's owner
   * (order.access.ts); null (anonymous, or a trusted internal call) places an order nobody owns.
   */
  async place(
    input: NewOrderInput,
    options: { idempotencyKey?: string | null; caller?: string | null } = {},
  ): Promise<Order> {
    const data = validate(newOrderSchema, input);
    const key =
      options.idempotencyKey == null ? null : scopedKey(options.caller ?? '', validateKey(options.idempotencyKey));
    // One statement, one round trip: the SQL function does in its own transaction what the steps
    // above say, in that order, under the pet's row lock (migration 20261122170000_store_functions).
    const [row] = await this.writer.query<StoreRow<Order>>(Prisma.sql`
      SELECT * FROM store_place_order(${data.petId}, ${data.quantity}, ${data.shipDate ?? null}::timestamptz,
        ${key}::text, ${key === null ? null : fingerprint(data)}::text, ${IDEMPOTENCY_KEY_TTL_MS / 1000}::float8,
        ${options.caller ?? null}::text)`);
    const order = storeResult(row);
    if (key !== null) await this.cleanUpKeys();
    return order;
  }

  /**
   * completeOrder: an open order becomes complete, its ship date now unless it had one. Completing a
   * complete order is INVALID_TRANSITION. Completing the last open order of a pending pet sells it.
   */
  complete(id: bigint): Promise<Order> {
    return this.finish(id, 'complete', { all: true });
  }

  /**
   * cancelOrder: removes an open order and puts its quantity back in stock (the pet becomes available
   * again); returns the order as it was. Cancelling a complete order is INVALID_TRANSITION. An order
   * outside `access` (another customer's) is NOT_FOUND, and nothing changes.
   */
  cancel(id: bigint, access: OrderAccess): Promise<Order> {
    return this.finish(id, 'cancel', access);
  }

  /**
   * Both in one statement (the SQL function `store_finish_order`): it finds the open order, locks its
   * pet (pet before order, the order every store write takes its locks in), then changes the order by
   * a conditional statement, so a concurrent complete and cancel of one order cannot both succeed;
   * the loser is told why. Then it settles the pet's status.
   */
  private async finish(id: bigint, action: 'complete' | 'cancel', access: OrderAccess): Promise<Order> {
    // The function takes the owner the caller is restricted to (NULL: any); none in reach: not found.
    const owner = storeOwner(access);
    if (owner === undefined) throw new NotFoundError(`Order ${id} not found`);
    const [row] = await this.writer.query<StoreRow<Order>>(
      Prisma.sql`SELECT * FROM store_finish_order(${id}, ${action}, ${owner}::text)`,
    );
    return storeResult(row);
  }

  private async cleanUpKeys(): Promise<void> {
    if (Date.now() - this.lastKeyCleanup < KEY_CLEANUP_INTERVAL_MS) return;
    this.lastKeyCleanup = Date.now();
    try {
      await deleteExpiredKeys(this.prisma);
    } catch {
      // Reclaiming space only: expired keys are ignored whether or not they are deleted, and the
      // order has been placed, so a failure here must not fail the request.
    }
  }

  /**
   * The one place a list filter becomes SQL (cursor pages and offset pages alike); `conditions`:
   * the caller's access (order.access.ts), and for `me.orders` its owner.
   */
  private query(filter: OrderFilterInput | null | undefined, extra: Prisma.Sql[]): ListQuery {
    const f = validate(filterSchema, filter);
    const conditions: Prisma.Sql[] = [...extra];
    if (f?.complete != null) conditions.push(Prisma.sql`complete = ${f.complete}`);
    if (f?.petId != null) conditions.push(Prisma.sql`pet_id = ${f.petId}`);
    return { select: ORDER_COLUMNS, from: Prisma.raw('orders'), conditions };
  }

  /** Orders, newest first, by cursor (GraphQL `orders`), as SQL, not yet run (the read compiler embeds it). */
  listSql(filter: OrderFilterInput | null | undefined, args: PageArgs, visible: Prisma.Sql[] = []): PageSql<Order> {
    return pageSql<Order>(this.query(filter, visible), newestFirst, args);
  }

  /**
   * One pet's page of orders (Pet.orders) as SQL, for the read compiler to run as a correlated
   * subquery per pet, newest first. `petId` is SQL naming the pet (e.g. `t0.id`).
   */
  petPageSql(petId: Prisma.Sql, args: Pick<PageArgs, 'first' | 'after'>, visible: Prisma.Sql[] = []): PageSql<Order> {
    return nestedPageSql<Order>({
      table: 'orders',
      parentColumn: 'pet_id',
      parent: petId,
      select: ORDER_COLUMNS_TEXT,
      conditions: visible,
      sort: newestFirst,
      args,
    });
  }

  /**
   * Orders, newest first, by offset (the legacy GET /store/orders): the same filter and order as
   * `listSql`, with the total count for X-Total-Count and the paging links.
   */
  async listByOffset(
    filter: OrderFilterInput | null | undefined,
    page: { limit: number; offset: number },
    access: OrderAccess,
  ): Promise<OffsetPage<Order>> {
    const q = this.query(filter, orderConditions(access));
    const { limit, offset } = validate(offsetPageSchema, page);
    // One statement, so the page and the count are one snapshot: two statements (on two
    // connections) let a write that commits between them make X-Total-Count disagree with the page.
    // The count's row is always there; the page's columns are null on it when the page is empty.
    const where = whereClause(q.conditions);
    const rows = await this.sql.query<Order & { total: number }>(Prisma.sql`
      SELECT c.total, page.* FROM (SELECT count(*)::int AS total FROM ${q.from} ${where}) c
      LEFT JOIN LATERAL (
        SELECT ${q.select} FROM ${q.from} ${where} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}
      ) page ON true`);
    const total = rows[0]?.total ?? 0;
    const items = rows.filter((row) => row.id !== null).map(({ total: _total, ...order }) => order);
    return { items, total };
  }
}

const keySchema = z.object({ 'Idempotency-Key': idempotencyKeySchema });

/** A malformed header is VALIDATION_FAILED naming it. */
const validateKey = (key: string): string => validate(keySchema, { 'Idempotency-Key': key })['Idempotency-Key'];

/** A row of a store function (migration 20261122170000_store_functions): a result, or a refusal. */
export type StoreRow<T> = T & { refusal: string | null; message: string | null };

/** The result of a store function's row, or its refusal thrown as the AppError it stands for. */
export function storeResult<T>(row: StoreRow<T> | undefined): T {
  if (!row) throw new Error('store function returned no row');
  if (row.refusal !== null) throw refusalError(row.refusal, row.message ?? '');
  const { refusal: _refusal, message: _message, ...result } = row;
  return result as T;
}

/** A refusal returned by a store function (SQLSTATE of class PS, see its migration). */
function refusalError(code: string, message: string): Error {
  switch (code) {
    case 'PS400':
      return new ValidationError(message);
    case 'PS404':
      return new NotFoundError(message);
    case 'PS409':
      return new ConflictError(message);
    case 'PS410':
      return new OutOfStockError(message);
    case 'PS422':
      return new InvalidTransitionError(message);
    default:
      return new Error(`store function: unknown refusal ${code}: ${message}`);
  }
}
