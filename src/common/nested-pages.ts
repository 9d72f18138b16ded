/**
 * Pages of a child list below a parent (Category.pets, Pet.orders), as SQL the read compiler runs
 * once per parent row, built only from constant identifiers and bound parameters.
 */
import { Prisma } from '../generated/prisma/client';
import { ValidationError } from '../errors/app-error';
import { limitSql, pageWindow, type PageArgs, type PageSql, type Sort } from './pagination';

/** The order of a nested list: by id only (its cursor is an id). */
export type NestedSort<T> = Sort<T> & {
  keys: [{ field: 'id'; column: 'id'; direction: 'asc' | 'desc'; type: 'bigint' }];
};

/**
 * One parent's page of a child list as SQL (the read compiler runs it as a correlated subquery per
 * parent): forward only, ordered by id, the cursor's id excluded. `parent` is SQL naming the parent's id (e.g. `t0.id`); rows carry `select`.
 */
export function nestedPageSql<T extends { id: bigint }>(q: {
  table: string;
  parentColumn: string;
  parent: Prisma.Sql;
  select: string;
  conditions: Prisma.Sql[];
  sort: NestedSort<T>;
  args: Pick<PageArgs, 'first' | 'after'>;
}): PageSql<T> {
  const window = pageWindow(q.args, q.sort);
  if (!window.forward) throw new ValidationError('nested lists page forward only (first/after)');
  const asc = q.sort.keys[0].direction === 'asc';
  const where = [Prisma.sql`${Prisma.raw(q.parentColumn)} = ${q.parent}`, ...q.conditions];
  const seek = window.cursor ? [Prisma.sql`id ${Prisma.raw(asc ? '>' : '<')} ${window.cursor[0] as bigint}`] : [];
  const table = Prisma.raw(q.table);
  const rows = Prisma.sql`SELECT ${Prisma.raw(q.select)} FROM ${table} WHERE ${Prisma.join([...where, ...seek], ' AND ')}`;
  return {
    statement: Prisma.sql`${rows} ORDER BY id ${Prisma.raw(asc ? 'ASC' : 'DESC')} ${limitSql(window)}`,
    rows,
    count: Prisma.sql`SELECT count(*)::int FROM ${table} WHERE ${Prisma.join(where, ' AND ')}`,
    window,
    sort: q.sort,
  };
}
