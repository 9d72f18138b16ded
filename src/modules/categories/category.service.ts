import { z } from 'zod';
import { Prisma, type Category as CategoryRow, type PrismaClient } from '../../generated/prisma/client';
import type { SqlReader } from '../../db/database';
import { ConflictError, NotFoundError } from '../../errors/app-error';
import { constraintViolation } from '../../errors/database-errors';
import { descriptionSchema, nameSchema, validate } from '../../common/validation';
import { pageSql, type PageArgs, type PageSql, type Sort } from '../../common/pagination';

/**
 * A Category as the API shows it: the row without its bookkeeping timestamps, which no GraphQL field or
 * REST answer outputs. Reads leave them out, so node-postgres parses no timestamp into a Date that
 * nobody reads (issue 15: 7 % of W2's CPU went to postgres-date); rows that writes return carry them
 * too, harmlessly.
 */
export type Category = Omit<CategoryRow, 'createdAt' | 'updatedAt'>;

export interface NewCategoryInput {
  name: string;
  description?: string | null;
}

export interface CategoryUpdateInput {
  name?: string | null;
  description?: string | null;
}

const newCategorySchema = z.object({ name: nameSchema, description: descriptionSchema.nullish() });
const categoryUpdateSchema = z.object({
  name: nameSchema.nullish(),
  description: descriptionSchema.nullish(),
});

const byId: Sort<Category> = { id: 'id', keys: [{ field: 'id', column: 'id', direction: 'asc', type: 'bigint' }] };

/** The categories table's columns under the model's field names (reads on the SQL reader). */
const CATEGORY_COLUMNS = Prisma.raw('id, name, description');

/** Categories as rows under the model's field names, for the read compiler's lookups by key. */
export const CATEGORY_ROWS = { select: 'id, name, description', from: 'categories', key: 'id' } as const;

/** Categories of pets. Names are unique (case-sensitive, after trimming). */
export class CategoryService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlReader,
  ) {}

  async get(id: bigint): Promise<Category | null> {
    const [category] = await this.sql.query<Category>(
      Prisma.sql`SELECT ${CATEGORY_COLUMNS} FROM categories WHERE id = ${id}`,
    );
    return category ?? null;
  }

  /** A page of categories as SQL, not yet run (the read compiler embeds it, src/read/). */
  listSql(args: PageArgs, visible: Prisma.Sql[] = []): PageSql<Category> {
    return pageSql<Category>(
      { select: CATEGORY_COLUMNS, from: Prisma.raw('categories'), conditions: visible },
      byId,
      args,
    );
  }

  async create(input: NewCategoryInput): Promise<Category> {
    const data = validate(newCategorySchema, input);
    try {
      return await this.prisma.category.create({ data });
    } catch (error) {
      throw this.translate(error, data.name);
    }
  }

  async update(id: bigint, input: CategoryUpdateInput): Promise<Category> {
    const parsed = validate(categoryUpdateSchema, input);
    const data = {
      ...(parsed.name != null && { name: parsed.name }),
      // An explicit null (or empty string) clears the description; an absent one keeps it.
      ...(input.description !== undefined && { description: parsed.description ?? null }),
    };
    try {
      return await this.prisma.category.update({ where: { id }, data });
    } catch (error) {
      throw this.translate(error, parsed.name ?? undefined, id);
    }
  }

  /** Deletes an empty category; one that still has pets is CONFLICT (the foreign key decides). */
  async delete(id: bigint): Promise<Category> {
    try {
      return await this.prisma.category.delete({ where: { id } });
    } catch (error) {
      const violation = constraintViolation(error);
      if (violation?.kind === 'foreign-key') {
        throw new ConflictError(`Category ${id} still has pets; move or delete them first`);
      }
      throw this.translate(error, undefined, id);
    }
  }

  private translate(error: unknown, name?: string, id?: bigint): unknown {
    const violation = constraintViolation(error);
    if (violation?.kind === 'unique') return new ConflictError(`A category named "${name}" already exists`);
    if (violation?.kind === 'record-not-found') return new NotFoundError(`Category ${id} not found`);
    return error;
  }
}
