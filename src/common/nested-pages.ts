/**
 * Pages of a child list for many parents at once (Category.pets, Pet.orders): one SQL statement
 * whatever the number of parents, using row_number() per parent to take `first + 1` rows each.
 * Prisma's nested `take` cannot do this in one bounded query, hence SQL here (on the SQL reader,
 * src/db/database.ts), built only from constant identifiers and bound parameters.
 */
import { Prisma } from '../generated/prisma/client';
import type { SqlReader } from '../db/database';
import { ValidationError } from '../errors/app-error';
import { buildPage, limitSql, pageWindow, type Page, type PageArgs, type PageSql, type Sort } from './pagination';

export interface NestedPageQuery<T extends { id: bigint }> {
  sql: SqlReader;
  table: string;
  parentColumn: string;
  /** SELECT list mapping columns to the model's field names, e.g. `category_id AS "categoryId"`. */
  select: string;
  /** Extra conditions (already parameterised). */
  conditions: Prisma.Sql[];
  sort: Sort<T> & { keys: [{ field: 'id'; column: 'id'; direction: 'asc' | 'desc'; type: 'bigint' }] };
  parentOf: (row: T) => bigint;
  parentIds: bigint[];
  args: Pick<PageArgs, 'first' | 'after'>;
  /** Number of rows for each parent (batched by the caller, run only when asked). */
  countFor: (parentId: bigint) => Promise<number>;
}

export async function loadNestedPages<T extends { id: bigint }>(q: NestedPageQuery<T>): Promise<Map<string, Page<T>>> {
  const window = pageWindow(q.args, q.sort);
  if (!window.forward) throw new ValidationError('nested lists page forward only (first/after)');
  const direction = q.sort.keys[0].direction === 'asc' ? Prisma.raw('ASC') : Prisma.raw('DESC');
  const conditions = [Prisma.sql`${Prisma.raw(q.parentColumn)} = ANY(${q.parentIds}::bigint[])`, ...q.conditions];
  if (window.cursor) {
    const op = q.sort.keys[0].direction === 'asc' ? Prisma.raw('>') : Prisma.raw('<');
    conditions.push(Prisma.sql`id ${op} ${window.cursor[0] as bigint}`);
  }
  const rows = await q.sql.query<T & { __rn: bigint }>(Prisma.sql`
    SELECT * FROM (
      SELECT ${Prisma.raw(q.select)},
             row_number() OVER (PARTITION BY ${Prisma.raw(q.parentColumn)} ORDER BY id ${direction}) AS "__rn"
      FROM ${Prisma.raw(q.table)}
      WHERE ${Prisma.join(conditions, ' AND ')}
    ) ranked
    WHERE "__rn" <= ${window.limit + 1}`);
  const byParent = new Map<string, T[]>();
  for (const { __rn: _rank, ...row } of rows) {
    const key = q.parentOf(row as unknown as T).toString();
    const list = byParent.get(key) ?? [];
    list.push(row as unknown as T);
    byParent.set(key, list);
  }
  const ascending = q.sort.keys[0].direction === 'asc';
  const pages = new Map<string, Page<T>>();
  for (const parentId of q.parentIds) {
    const list = (byParent.get(parentId.toString()) ?? []).sort((a, b) =>
      a.id === b.id ? 0 : a.id < b.id === ascending ? -1 : 1,
    );
    pages.set(
      parentId.toString(),
      buildPage(list, window, q.sort, () => q.countFor(parentId)),
    );
  }
  return pages;
}

/**
 * One parent's page of a child list as SQL (the read compiler runs it as a correlated subquery per
 * parent): the same rules as `loadNestedPages` (forward only, ordered by id, the cursor's id
 * excluded). `parent` is SQL naming the parent's id (e.g. `t0.id`); rows carry `select`.
 */
export function nestedPageSql<T extends { id: bigint }>(q: {
  table: string;
  parentColumn: string;
  parent: Prisma.Sql;
  select: string;
  conditions: Prisma.Sql[];
  sort: NestedPageQuery<T>['sort'];
  args: Pick<PageArgs, 'first' | 'after'>;
}): PageSql<T> {
  const window = pageWindow(q.args, q.sort);
  if (!window.forward) throw new ValidationError('nested lists page forward only (first/after)');
  const asc = q.sort.keys[0].direction === 'asc';
  const where = [Prisma.sql`${Prisma.raw(q.parentColumn)} = ${q.parent}`, ...q.conditions];
  const seek = window.cursor ? [Prisma.sql`id ${Prisma.raw(asc ? '>' : '<')} ${window.cursor[0] as bigint}`] : [];
  const table = Prisma.raw(q.table);
  return {
    statement: Prisma.sql`SELECT ${Prisma.raw(q.select)} FROM ${table} WHERE ${Prisma.join([...where, ...seek], ' AND ')} ORDER BY id ${Prisma.raw(asc ? 'ASC' : 'DESC')} ${limitSql(window)}`,
    count: Prisma.sql`SELECT count(*)::int FROM ${table} WHERE ${Prisma.join(where, ' AND ')}`,
    window,
    sort: q.sort,
  };
}

/** `parent -> number of rows` for many parents in one statement. */
export async function countByParent(
  sql: SqlReader,
  table: string,
  parentColumn: string,
  parentIds: readonly bigint[],
  conditions: Prisma.Sql[],
): Promise<Map<string, number>> {
  const where = [Prisma.sql`${Prisma.raw(parentColumn)} = ANY(${[...parentIds]}::bigint[])`, ...conditions];
  const rows = await sql.query<{ parent: bigint; n: number }>(Prisma.sql`
    SELECT ${Prisma.raw(parentColumn)} AS parent, count(*)::int AS n
    FROM ${Prisma.raw(table)} WHERE ${Prisma.join(where, ' AND ')}
    GROUP BY ${Prisma.raw(parentColumn)}`);
  return new Map(rows.map((r) => [r.parent.toString(), Number(r.n)]));
}
