import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client';
import { validate } from '../../common/validation';
import { pageSql, type PageArgs, type PageSql, type ListQuery, type Sort } from '../../common/pagination';
import type { SqlReader } from '../../db/database';
import { PET_STATUSES, type PetStatus } from '../pets/pet-status';
import { storeResult, type StoreRow } from '../orders/order.service';

/** A pet's stock. `status` is always the pet's own status, read through the relation. */
export interface InventoryEntry {
  petId: bigint;
  quantity: number;
  status: PetStatus;
}

export interface InventoryFilterInput {
  status?: PetStatus | null;
  quantityBelow?: number | null;
}

export const MAX_STOCK = 1_000_000;

const quantitySchema = z.object({
  quantity: z.number().int().min(0, 'must be 0 or more').max(MAX_STOCK, `must be at most ${MAX_STOCK}`),
});
const filterSchema = z
  .object({
    status: z.enum(PET_STATUSES as [PetStatus, ...PetStatus[]]).nullish(),
    quantityBelow: z.number().int().nullish(),
  })
  .nullish();

const byPetId: Sort<InventoryEntry> = {
  id: 'petId',
  keys: [{ field: 'petId', column: 'i.pet_id', direction: 'asc', type: 'bigint' }],
};

/**
 * Stock entries with their pet's status (reads on the SQL reader). Every stock row has its pet
 * (`pet_id` NOT NULL, a foreign key that cascades), so the LEFT JOIN gives the rows an inner join
 * gives; written LEFT so that PostgreSQL drops it from every statement that reads nothing of the pet
 * (a count, `petId`/`quantity` alone): see ListQuery.from.
 */
const ENTRY_SELECT = 'i.pet_id AS "petId", i.quantity, p.status';
const ENTRY_COLUMNS = Prisma.raw(ENTRY_SELECT);
const ENTRIES_FROM = 'inventory_items i LEFT JOIN pets p ON p.id = i.pet_id';
const ENTRIES = Prisma.raw(ENTRIES_FROM);

/** Stock entries as rows under the model's field names, for the read compiler's lookups by key. */
export const INVENTORY_ROWS = {
  select: ENTRY_SELECT,
  from: ENTRIES_FROM,
  key: 'i.pet_id',
} as const;

/** Stock rows without the pet's status, for a pet's own entry (the status is the pet row's). */
export const STOCK_ROWS = { select: 'pet_id AS "petId", quantity', from: 'inventory_items', key: 'pet_id' } as const;

export class InventoryService {
  constructor(
    private readonly sql: SqlReader,
    /** The store functions' one statement each, on the primary (Database.writer). */
    private readonly writer: SqlReader,
  ) {}

  async get(petId: bigint): Promise<InventoryEntry | null> {
    const [entry] = await this.sql.query<InventoryEntry>(Prisma.sql`
      SELECT ${ENTRY_COLUMNS} FROM ${ENTRIES} WHERE i.pet_id = ${petId}`);
    return entry ?? null;
  }

  /** A page of stock entries as SQL, not yet run (the read compiler embeds it, src/read/). */
  listSql(
    filter: InventoryFilterInput | null | undefined,
    args: PageArgs,
    visible: Prisma.Sql[] = [],
  ): PageSql<InventoryEntry> {
    const q = this.query(filter);
    return pageSql<InventoryEntry>({ ...q, conditions: [...q.conditions, ...visible] }, byPetId, args);
  }

  /** The one place an inventory filter becomes SQL. */
  private query(filter: InventoryFilterInput | null | undefined): ListQuery {
    const f = validate(filterSchema, filter);
    const conditions: Prisma.Sql[] = [];
    if (f?.status) conditions.push(Prisma.sql`p.status = ${f.status}::"PetStatus"`);
    if (f?.quantityBelow != null) conditions.push(Prisma.sql`i.quantity < ${f.quantityBelow}`);
    return { select: ENTRY_COLUMNS, from: ENTRIES, conditions };
  }

  /** Total stock per pet status; every status is present, 0 when no pet has it. */
  async summary(): Promise<{ status: PetStatus; quantity: number }[]> {
    const rows = await this.sql.query<{ status: PetStatus; quantity: bigint }>(Prisma.sql`
      SELECT p.status AS status, COALESCE(SUM(i.quantity), 0)::bigint AS quantity
      FROM pets p JOIN inventory_items i ON i.pet_id = p.id
      GROUP BY p.status`);
    const totals = new Map(rows.map((r) => [r.status, Number(r.quantity)]));
    return PET_STATUSES.map((status) => ({ status, quantity: totals.get(status) ?? 0 }));
  }

  /**
   * Sets a pet's stock (0..1,000,000; negative is VALIDATION_FAILED), under the pet's row lock, and
   * applies the lifecycle: stock above 0 makes the pet available (restock); 0 with open orders makes
   * it pending; 0 without them leaves the status as it is.
   */
  async update(petId: bigint, input: { quantity: number }): Promise<InventoryEntry> {
    const { quantity } = validate(quantitySchema, input);
    // One statement: the SQL function `store_set_stock` does the above under the pet's row lock.
    const [row] = await this.writer.query<StoreRow<InventoryEntry>>(
      Prisma.sql`SELECT * FROM store_set_stock(${petId}, ${quantity}::int)`,
    );
    return storeResult(row);
  }
}
