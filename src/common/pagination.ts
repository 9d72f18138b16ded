/**
 * Relay cursor pagination over keyset ("seek") queries: a page is found by comparing sort keys with
 * the cursor's, never with OFFSET, so page 500 costs what page 1 costs and rows inserted meanwhile do
 * not shift pages. Cursors are opaque (base64url of the sort name and key values); one made for another
 * ordering, or not made by us at all, is VALIDATION_FAILED.
 *
 * Hand-written because the libraries for this (graphql-relay's connectionFromArray, Prisma's own
 * `cursor` option) page by offset or need the cursor row to still exist.
 */
import { Prisma } from '../generated/prisma/client';
import { ValidationError } from '../errors/app-error';
import { parseId } from './ids';

// PostgreSQL text cannot hold NUL, and no stored sort key holds a control character: a cursor
// carrying one was not made by us and must not reach the database.
const CONTROL_CHARS = /\p{Cc}/u;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface SortKey<T> {
  field: keyof T & string;
  /** The column the field is read from (a constant, written into the SQL). */
  column: string;
  direction: 'asc' | 'desc';
  type: 'bigint' | 'string';
}

export interface Sort<T> {
  /** Names the ordering inside cursors, so a cursor of one ordering is refused by another. */
  id: string;
  keys: SortKey<T>[];
}

export interface Edge<T> {
  readonly cursor: string;
  readonly node: T;
}

export interface PageInfo {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly startCursor: string | null;
  readonly endCursor: string | null;
}

/**
 * A page of a connection; `totalCount` is the count the page's statement read, or a function that
 * runs its query only when a client asks for it.
 */
export interface Page<T> {
  readonly edges: Edge<T>[];
  readonly nodes: T[];
  readonly pageInfo: PageInfo;
  readonly totalCount: number | (() => Promise<number>);
}

export interface PageWindow {
  forward: boolean;
  limit: number;
  cursor: unknown[] | null;
}

function checkSize(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new ValidationError(`${name}: must be between 1 and ${MAX_PAGE_SIZE}`);
  }
  return value;
}

/** Validates the Relay arguments and decodes the cursor for `sort`. */
export function pageWindow<T>(args: PageArgs, sort: Sort<T>): PageWindow {
  const { first, after, last, before } = args;
  const forwardArgs = first != null || after != null;
  const backwardArgs = last != null || before != null;
  if (forwardArgs && backwardArgs) {
    throw new ValidationError('first/after and last/before cannot be combined');
  }
  if (backwardArgs) {
    return {
      forward: false,
      limit: last == null ? DEFAULT_PAGE_SIZE : checkSize(last, 'last'),
      cursor: before == null ? null : decodeCursor(before, sort, 'before'),
    };
  }
  return {
    forward: true,
    limit: first == null ? DEFAULT_PAGE_SIZE : checkSize(first, 'first'),
    cursor: after == null ? null : decodeCursor(after, sort, 'after'),
  };
}

export function encodeCursor<T>(sort: Sort<T>, node: T): string {
  const values = sort.keys.map((k) => String(node[k.field]));
  return Buffer.from(JSON.stringify([sort.id, ...values])).toString('base64url');
}

function decodeCursor<T>(cursor: string, sort: Sort<T>, name: string): unknown[] {
  const invalid = () => new ValidationError(`${name}: invalid cursor`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== sort.keys.length + 1 ||
    parsed[0] !== sort.id ||
    !parsed.every((v) => typeof v === 'string')
  ) {
    throw invalid();
  }
  const values = sort.keys.map((key, i) => {
    const raw = parsed[i + 1] as string;
    if (key.type === 'string') {
      if (CONTROL_CHARS.test(raw)) throw invalid();
      return raw;
    }
    try {
      return parseId(raw);
    } catch {
      throw invalid();
    }
  });
  // Only the spelling encodeCursor writes: Buffer skips characters that are not base64url, and JSON
  // and ids have other spellings ("05", spaces, padding), none of which a page of ours answers.
  if (Buffer.from(JSON.stringify([sort.id, ...values.map(String)])).toString('base64url') !== cursor) {
    throw invalid();
  }
  return values;
}

/**
 * The condition that selects rows strictly after (forward) or before (backward) the cursor:
 * `(k1 > v1) OR (k1 = v1 AND k2 > v2) ...`, each comparison turned by its key's direction.
 */
function keysetCondition<T>(sort: Sort<T>, window: PageWindow): Prisma.Sql | null {
  const values = window.cursor;
  if (!values) return null;
  const ors = sort.keys.map((key, i) => {
    const parts = sort.keys.slice(0, i).map((k, j) => Prisma.sql`${Prisma.raw(k.column)} = ${values[j]}`);
    const op = (key.direction === 'asc') === window.forward ? '>' : '<';
    parts.push(Prisma.sql`${Prisma.raw(key.column)} ${Prisma.raw(op)} ${values[i]}`);
    return Prisma.sql`(${Prisma.join(parts, ' AND ')})`;
  });
  return Prisma.sql`(${Prisma.join(ors, ' OR ')})`;
}

/** ORDER BY for the window: the sort itself going forward, reversed going backward. */
function keysetOrderBy<T>(sort: Sort<T>, window: PageWindow): Prisma.Sql {
  return Prisma.raw(
    sort.keys.map((k) => `${k.column} ${(k.direction === 'asc') === window.forward ? 'ASC' : 'DESC'}`).join(', '),
  );
}

/** `WHERE c1 AND c2 ...`, or nothing. */
export const whereClause = (conditions: Prisma.Sql[]): Prisma.Sql =>
  conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;

/**
 * Builds the page from rows fetched with `take: limit + 1` in window order (the extra row only
 * says whether another page exists). `totalCount`: the count when the statement read it, or a
 * function that reads it when a client asks.
 *
 * Cursors are encoded only when read: an edge's `cursor`, `startCursor` and `endCursor` are
 * getters, and the edges themselves are made when `edges` is first read. Encoding one is a JSON
 * text and a base64url Buffer (~1.5 us); every page built them all, for every row, though most
 * documents select `nodes` and at most `endCursor` (a page of 50 pets: 50-80 us of cursors; W6
 * built 110 per request and read none; docs/benchmarks.md, round 14).
 */
export function buildPage<T>(
  rows: T[],
  window: PageWindow,
  sort: Sort<T>,
  totalCount: number | (() => Promise<number>),
): Page<T> {
  const more = rows.length > window.limit;
  const nodes = more ? rows.slice(0, window.limit) : rows.slice();
  if (!window.forward) nodes.reverse();
  // Relay allows "false when it cannot be known cheaply": having come from a cursor means a row
  // exists on that side (the cursor's own row, or rows that preceded it).
  const hasNext = window.forward ? more : window.cursor !== null;
  const hasPrevious = window.forward ? window.cursor !== null : more;
  return new BuiltPage(
    nodes,
    sort,
    hasNext,
    hasPrevious,
    typeof totalCount === 'number' ? totalCount : memo(totalCount),
  );
}

/** A page whose cursors are encoded when read, each once (`buildPage`). */
class BuiltPage<T> implements Page<T> {
  readonly pageInfo: PageInfo;
  #edges: Edge<T>[] | undefined;
  readonly #cursors: (string | undefined)[] = [];

  constructor(
    readonly nodes: T[],
    private readonly sort: Sort<T>,
    hasNextPage: boolean,
    hasPreviousPage: boolean,
    readonly totalCount: number | (() => Promise<number>),
  ) {
    this.pageInfo = new BuiltPageInfo(this, hasNextPage, hasPreviousPage);
  }

  get edges(): Edge<T>[] {
    return (this.#edges ??= this.nodes.map((node, i) => new BuiltEdge(this, i, node)));
  }

  cursorAt(index: number): string {
    return (this.#cursors[index] ??= encodeCursor(this.sort, this.nodes[index]!));
  }
}

class BuiltEdge<T> implements Edge<T> {
  constructor(
    private readonly page: BuiltPage<T>,
    private readonly index: number,
    readonly node: T,
  ) {}

  get cursor(): string {
    return this.page.cursorAt(this.index);
  }
}

class BuiltPageInfo<T> implements PageInfo {
  constructor(
    private readonly page: BuiltPage<T>,
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}

  get startCursor(): string | null {
    return this.page.nodes.length ? this.page.cursorAt(0) : null;
  }

  get endCursor(): string | null {
    const last = this.page.nodes.length - 1;
    return last >= 0 ? this.page.cursorAt(last) : null;
  }
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= fn());
}

/** A list query: `SELECT <select> FROM <from> WHERE <conditions>`, columns aliased to field names. */
export interface ListQuery {
  select: Prisma.Sql;
  /**
   * The rows' tables. A to-one join that never adds or drops a row (on a NOT NULL foreign key) is
   * written as a LEFT JOIN on the joined table's primary key, the same rows as an inner one: then
   * PostgreSQL removes it wherever nothing reads the joined table (a count, a page whose selected
   * columns are the first table's alone), which it never does with an inner join.
   */
  from: Prisma.Sql;
  conditions: Prisma.Sql[];
}

/**
 * One keyset page of a list query as SQL, not yet run: `statement` selects the page's rows
 * (`take: limit + 1`, in window order) with the list's columns, `count` counts the rows of the list
 * (its filter, not the page). The read compiler (src/read/) embeds both in its statements.
 */
export interface PageSql<T> {
  statement: Prisma.Sql;
  /**
   * The page's candidate rows, unordered and unlimited: `SELECT <select> FROM <from> WHERE <filter
   * and cursor>`, for the read compiler to join its to-one relations to and then order and cut
   * (`ORDER BY` over `windowOrderBy`, `limitSql`), so that PostgreSQL probes each relation for the
   * page's rows only, below the `LIMIT` (a plain subquery: the planner pulls it up into the join).
   */
  rows: Prisma.Sql;
  count: Prisma.Sql;
  window: PageWindow;
  sort: Sort<T>;
}

/**
 * A page's `LIMIT` (the window's size plus the row that says whether more follow), written into the
 * statement as a literal, as PostGraphile does, rather than bound: PostgreSQL plans a prepared
 * statement generically after five executions, and its generic plan does not know the limit (it
 * assumes a tenth of the table), so it hashes whole tables to join a page of twenty rows
 * (bench/notes/explain.md: W3's statement 0.39 ms of PostgreSQL CPU with `LIMIT $n`, 0.17 ms with
 * `LIMIT 21`). The size is a validated integer of 1-100 (`checkSize`): at most 100 texts per shape,
 * within the bound on named statements (src/db/database.ts).
 */
export function limitSql(window: PageWindow, extraRow = true): Prisma.Sql {
  const n = window.limit + (extraRow ? 1 : 0);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`page limit out of range: ${n}`);
  return Prisma.raw(`LIMIT ${n}`);
}

/** The statements of one page of `q` (validates the Relay arguments and the cursor). */
export function pageSql<T>(q: ListQuery, sort: Sort<T>, args: PageArgs): PageSql<T> {
  const window = pageWindow(args, sort);
  const seek = keysetCondition(sort, window);
  const where = whereClause(seek ? [...q.conditions, seek] : q.conditions);
  return {
    statement: Prisma.sql`SELECT ${q.select} FROM ${q.from} ${where} ORDER BY ${keysetOrderBy(sort, window)} ${limitSql(window)}`,
    rows: Prisma.sql`SELECT ${q.select} FROM ${q.from} ${where}`,
    count: Prisma.sql`SELECT count(*)::int FROM ${q.from} ${whereClause(q.conditions)}`,
    window,
    sort,
  };
}

/**
 * The window's order over a page's output columns (named like the sort's fields) as `alias`: how a
 * query over the page (the read compiler's ORDER BY over a page's candidate rows) keeps them in window order.
 */
export function windowOrderBy<T>(sort: Sort<T>, window: PageWindow, alias: string): Prisma.Sql {
  return Prisma.raw(
    sort.keys
      .map((k) => `${alias}."${k.field}" ${(k.direction === 'asc') === window.forward ? 'ASC' : 'DESC'}`)
      .join(', '),
  );
}
