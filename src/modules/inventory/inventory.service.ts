import { z } from 'zod';
import { Prisma, type PrismaClient } from '../../generated/prisma/client';
import { NotFoundError } from '../../errors/app-error';
import { validate } from '../../common/validation';
import { buildPage, keysetOrderBy, keysetWhere, pageWindow, type Page, type PageArgs, type Sort } from '../../common/pagination';
import { PET_STATUSES, type PetStatus } from '../pets/pet-status';
import { lockPet, settleStatus, STORE_TX_OPTIONS } from '../pets/pet-lifecycle';

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

const byPetId: Sort<InventoryEntry> = { id: 'petId', keys: [{ field: 'petId', direction: 'asc', type: 'bigint' }] };

const withStatus = { pet: { select: { status: true } } } as const;
const toEntry = (row: { petId: bigint; quantity: number; pet: { status: PetStatus } }): InventoryEntry => ({
  petId: row.petId,
  quantity: row.quantity,
  status: row.pet.status,
});

export class InventoryService {
  constructor(private readonly prisma: PrismaClient) {}

  /** Stock rows without status (the caller knows the pet): one statement for many pets. */
  byPetIds(petIds: readonly bigint[]): Promise<{ petId: bigint; quantity: number }[]> {
    return this.prisma.inventoryItem.findMany({
      where: { petId: { in: [...petIds] } },
      select: { petId: true, quantity: true },
    });
  }

  async get(petId: bigint): Promise<InventoryEntry | null> {
    const row = await this.prisma.inventoryItem.findUnique({ where: { petId }, include: withStatus });
    return row && toEntry(row);
  }

  async list(filter: InventoryFilterInput | null | undefined, args: PageArgs): Promise<Page<InventoryEntry>> {
    const f = validate(filterSchema, filter);
    const where: Prisma.InventoryItemWhereInput = {
      ...(f?.status && { pet: { status: f.status } }),
      ...(f?.quantityBelow != null && { quantity: { lt: f.quantityBelow } }),
    };
    const window = pageWindow(args, byPetId);
    const seek = keysetWhere(byPetId, window);
    const rows = await this.prisma.inventoryItem.findMany({
      where: seek ? { AND: [where, seek] } : where,
      orderBy: keysetOrderBy(byPetId, window),
      take: window.limit + 1,
      include: withStatus,
    });
    return buildPage(rows.map(toEntry), window, byPetId, () => this.prisma.inventoryItem.count({ where }));
  }

  /** Total stock per pet status; every status is present, 0 when no pet has it. */
  async summary(): Promise<{ status: PetStatus; quantity: number }[]> {
    const rows = await this.prisma.$queryRaw<{ status: PetStatus; quantity: bigint }[]>`
      SELECT p.status AS status, COALESCE(SUM(i.quantity), 0)::bigint AS quantity
      FROM pets p JOIN inventory_items i ON i.pet_id = p.id
      GROUP BY p.status`;
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
    return this.prisma.$transaction(async (tx) => {
      if (!(await lockPet(tx, petId))) throw new NotFoundError(`Pet ${petId} not found`);
      await tx.inventoryItem.update({ where: { petId }, data: { quantity } });
      const state = await settleStatus(tx, petId);
      return { petId, quantity: state.stock, status: state.status };
    }, STORE_TX_OPTIONS);
  }
}
