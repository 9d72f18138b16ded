import { z } from 'zod';
import { Prisma, type Pet as PetRow, type PrismaClient } from '../../generated/prisma/client';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/app-error';
import { constraintViolation } from '../../errors/database-errors';
import { nameSchema, searchSchema, validate } from '../../common/validation';
import { pageSql, type PageArgs, type PageSql, type Sort } from '../../common/pagination';
import type { SqlReader } from '../../db/database';
import { nestedPageSql } from '../../common/nested-pages';
import { PET_STATUSES, type PetStatus } from './pet-status';
import { checkInitialStatus, checkManualMove, lockPet, STORE_TX_OPTIONS } from './pet-lifecycle';

/**
 * A Pet as the API shows it: the row without its bookkeeping timestamps, which no GraphQL field or
 * REST answer outputs. Reads leave them out, so node-postgres parses no timestamp into a Date that
 * nobody reads (issue 15: 7 % of W2's CPU went to postgres-date); rows that writes return carry them
 * too, harmlessly.
 */
export type Pet = Omit<PetRow, 'createdAt' | 'updatedAt'>;

export interface PetFilterInput {
  status?: PetStatus | null;
  categoryId?: bigint | null;
  nameContains?: string | null;
}

export interface PetOrderInput {
  field: 'id' | 'name';
  direction?: 'asc' | 'desc' | null;
}

export interface NewPetInput {
  name: string;
  categoryId: bigint;
  status?: PetStatus | null;
}

export interface PetUpdateInput {
  name?: string | null;
  categoryId?: bigint | null;
  status?: PetStatus | null;
}

const statusSchema = z.enum(PET_STATUSES as [PetStatus, ...PetStatus[]]);
const newPetSchema = z.object({ name: nameSchema, categoryId: z.bigint(), status: statusSchema.nullish() });
const petUpdateSchema = z.object({
  name: nameSchema.nullish(),
  categoryId: z.bigint().nullish(),
  status: statusSchema.nullish(),
});
const filterSchema = z
  .object({ status: statusSchema.nullish(), categoryId: z.bigint().nullish(), nameContains: searchSchema.nullish() })
  .nullish();

function sortFor(order: PetOrderInput | null | undefined): Sort<Pet> {
  const direction = order?.direction ?? 'asc';
  if (order?.field === 'name') {
    return {
      id: `name-${direction}`,
      keys: [
        { field: 'name', column: 'name', direction, type: 'string' },
        { field: 'id', column: 'id', direction, type: 'bigint' },
      ],
    };
  }
  return { id: `id-${direction}`, keys: [{ field: 'id', column: 'id', direction, type: 'bigint' }] };
}

const byIdAsc = sortFor(null) as Sort<Pet> & {
  keys: [{ field: 'id'; column: 'id'; direction: 'asc'; type: 'bigint' }];
};

/** The pets table's columns under the model's field names (reads on the SQL reader). */
const PET_COLUMNS = 'id, name, category_id AS "categoryId", status';

/** Pets as rows under the model's field names, for the read compiler's lookups by key. */
export const PET_ROWS = { select: PET_COLUMNS, from: 'pets', key: 'id' } as const;

/** `%`, `_` and `\` are LIKE wildcards; a search for them means the characters themselves. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** Pets: the catalogue. Every pet has exactly one inventory entry, created with it at quantity 0. */
export class PetService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlReader,
  ) {}

  async get(id: bigint): Promise<Pet | null> {
    const [pet] = await this.sql.query<Pet>(Prisma.sql`SELECT ${Prisma.raw(PET_COLUMNS)} FROM pets WHERE id = ${id}`);
    return pet ?? null;
  }

  /** Like `get`, but a missing pet is NOT_FOUND. */
  async require(id: bigint): Promise<Pet> {
    const pet = await this.get(id);
    if (!pet) throw new NotFoundError(`Pet ${id} not found`);
    return pet;
  }

  /** A page of pets as SQL, not yet run (the read compiler embeds it, src/read/). */
  listSql(
    filter: PetFilterInput | null | undefined,
    order: PetOrderInput | null | undefined,
    args: PageArgs,
    visible: Prisma.Sql[] = [],
  ): PageSql<Pet> {
    return pageSql<Pet>(
      {
        select: Prisma.raw(PET_COLUMNS),
        from: Prisma.raw('pets'),
        conditions: [...this.conditions(filter), ...visible],
      },
      sortFor(order),
      args,
    );
  }

  /**
   * One category's page of pets (Category.pets) as SQL, for the read compiler to run as a correlated
   * subquery per category: `categoryId` is SQL naming the category (e.g. `t0.id`). The same filter,
   * order (by id) and cursor rules as the root list's pages; rows carry PET_COLUMNS.
   */
  categoryPageSql(
    categoryId: Prisma.Sql,
    filter: PetFilterInput | null | undefined,
    args: Pick<PageArgs, 'first' | 'after'>,
    visible: Prisma.Sql[] = [],
  ): PageSql<Pet> {
    return nestedPageSql<Pet>({
      table: 'pets',
      parentColumn: 'category_id',
      parent: categoryId,
      select: PET_COLUMNS,
      conditions: [...this.conditions(filter), ...visible],
      sort: byIdAsc,
      args,
    });
  }

  /** The one place a pet filter becomes SQL (lists, nested lists and their counts alike). */
  private conditions(filter: PetFilterInput | null | undefined): Prisma.Sql[] {
    const f = validate(filterSchema, filter);
    const conditions: Prisma.Sql[] = [];
    if (f?.status) conditions.push(Prisma.sql`status = ${f.status}::"PetStatus"`);
    if (f?.categoryId != null) conditions.push(Prisma.sql`category_id = ${f.categoryId}`);
    if (f?.nameContains) conditions.push(Prisma.sql`name ILIKE ${likePattern(f.nameContains)}`);
    return conditions;
  }

  /**
   * Creates the pet and its inventory entry (quantity 0) in one statement. It may start available
   * (the default) or sold, never pending (it has no orders): INVALID_TRANSITION.
   */
  async create(input: NewPetInput): Promise<Pet> {
    const data = validate(newPetSchema, input);
    if (data.status) checkInitialStatus(data.status);
    try {
      return await this.prisma.pet.create({
        data: {
          name: data.name,
          categoryId: data.categoryId,
          ...(data.status && { status: data.status }),
          inventory: { create: { quantity: 0 } },
        },
      });
    } catch (error) {
      throw this.translate(error, data.categoryId);
    }
  }

  /**
   * Changes the given fields. A status change is a manual move of the lifecycle (`checkManualMove`),
   * checked under the pet's row lock so that no order or stock change slips in between.
   */
  async update(id: bigint, input: PetUpdateInput): Promise<Pet> {
    const data = validate(petUpdateSchema, input);
    try {
      return await this.prisma.$transaction(async (tx) => {
        const state = await lockPet(tx, id);
        if (!state) throw new NotFoundError(`Pet ${id} not found`);
        if (data.status != null) checkManualMove(id, state, data.status);
        return tx.pet.update({
          where: { id },
          data: {
            ...(data.name != null && { name: data.name }),
            ...(data.categoryId != null && { categoryId: data.categoryId }),
            ...(data.status != null && { status: data.status }),
          },
        });
      }, STORE_TX_OPTIONS);
    } catch (error) {
      throw this.translate(error, data.categoryId ?? undefined, id);
    }
  }

  /** setPetStatus: a manual move of the lifecycle; every other move is INVALID_TRANSITION. */
  async setStatus(id: bigint, status: PetStatus): Promise<Pet> {
    return this.update(id, { status });
  }

  /**
   * Deletes a pet and its inventory entry. A pet with open orders is CONFLICT (cancel or complete
   * them first); completed orders stay as history with their pet id cleared. The pet's row lock
   * (the one placeOrder takes) keeps an order from being placed between the check and the delete.
   */
  async delete(id: bigint): Promise<Pet> {
    return this.prisma.$transaction(async (tx) => {
      const state = await lockPet(tx, id);
      if (!state) throw new NotFoundError(`Pet ${id} not found`);
      if (state.openOrders > 0) {
        throw new ConflictError(`Pet ${id} has ${state.openOrders} open order(s); complete or cancel them first`);
      }
      const pet = (await tx.pet.findUnique({ where: { id } }))!;
      await tx.pet.delete({ where: { id } });
      return pet;
    }, STORE_TX_OPTIONS);
  }

  private translate(error: unknown, categoryId?: bigint, id?: bigint): unknown {
    const violation = constraintViolation(error);
    if (violation?.kind === 'foreign-key')
      return new ValidationError(`categoryId: category ${categoryId} does not exist`);
    if (violation?.kind === 'record-not-found') return new NotFoundError(`Pet ${id} not found`);
    return error;
  }
}
