/**
 * The read compiler: a root query field, with everything selected below it at any depth, becomes ONE
 * SQL statement, the way PostGraphile and Hasura do: the root field's rows as plain rows of columns,
 * to-one relations joined beside their row (their columns inline), connections as the service's
 * own page (its filter, cursor and order) with their rows as one text array per page, and
 * `totalCount` as the service's count statement beside it. PostgreSQL builds no JSON; the gateway
 * parses the arrays (`fromColumns`).
 *
 * The walk follows the validated operation as graphql-js executes it: `collectSubfields` resolves
 * fragments, aliases, type conditions and `@skip`/`@include` with the request's coerced variables,
 * and `getArgumentValues` coerces each field's arguments exactly as its resolver receives them. Only
 * the relation table (relations.ts) says what a field reads; there is no function per query shape.
 *
 * What the statement returned is handed to the field resolvers on the objects themselves: every
 * compiled relation is stored on its parent row under the field's AST node (so two aliases with
 * other arguments, or `nodes` and `edges.node` asking different things, each find their own), and
 * the resolvers read it synchronously (compiled.ts). A nested field whose arguments the service
 * refuses (a bad cursor, `first: 101`) is not compiled: its error is stored in its place and thrown
 * by its resolver, so it is reported on that field's path, as it would have been without compiling.
 *
 * The statement text depends only on the document's shape: every value (ids, filters, cursors, page
 * sizes) is a bound parameter, so a prepared statement per shape is reused (src/db/database.ts).
 */
import {
  getArgumentValues,
  getNamedType,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';
import { types as pgTypes } from 'pg';
import { parse as parseArray } from 'postgres-array';
import { Prisma } from '../generated/prisma/client';
import { readsByKey, readsByKeys, readsShared } from '../db/coalesce';
import { AppError } from '../errors/app-error';
import { OBJECT_TYPES, objectType, type Viewer } from '../common/object-types';
import { buildPage, limitSql, windowOrderBy, type PageSql } from '../common/pagination';
import type { Services } from '../modules/services';
import { CompiledError, COMPILED } from './compiled';
import {
  OBJECTS,
  RELATIONS,
  type ObjectEntry,
  type ObjectName,
  type OneRelation,
  type ParentName,
  type ParentRef,
  type Relation,
  type ScalarKind,
} from './relations';

export type CompileInfo = Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>;

/** What one object's JSON holds and how it becomes the row its resolvers expect. */
interface ObjectPlan {
  type: ObjectName;
  /** The row's alias in the statement. */
  alias: string;
  /** Fields read from another row than its own (`Pet.inventory`'s status: the pet's), as SQL. */
  inherited?: Record<string, string>;
  scalars: string[];
  relations: RelationPlan[];
}

interface RelationPlan {
  /** The AST nodes it answers (each resolver finds it under its own `info.fieldNodes[0]`). */
  nodes: readonly FieldNode[];
  relation: Relation;
  child: ObjectPlan;
  /** For connections: the page's window and sort (cursors, pageInfo) and whether it is counted. */
  page?: PageSql<object>;
  counted?: boolean;
  /**
   * The row a page reads beyond its size only says whether more follow (`hasNextPage`, or
   * `hasPreviousPage` paging backward): when neither is selected, that row is not read, nor any of
   * its relations (W6: 11 categories' pages of 11 pets, 121 inventory probes, for 10 pages of 10).
   */
  trimmed?: boolean;
  /** The nested field's arguments were refused: its resolver throws this. */
  error?: unknown;
  /** To-one relations: SQL of the key the target row must have. */
  on?: Prisma.Sql;
  /** A root lookup by its key (`pet(id:)`): the key, so that lookups of one turn may be coalesced (db/coalesce.ts). */
  key?: bigint;
  /** The same lookup over several keys (`= ANY`): the statement of a coalesced batch. */
  keys?: unknown[];
  /** A to-one relation answered by its foreign key alone (`OneRelation.foreignKey`): no join. */
  unjoined?: true;
}

const quote = (field: string) => `"${field}"`;

class Compilation {
  private aliases = 0;
  /**
   * Aliases of rows at hand (`readRelationsOf`: a mutation's result, an event's object), not read by
   * the statement: their foreign keys were read before it, so a relation from them is joined.
   */
  private readonly atHand = new Set<string>();

  constructor(
    private readonly info: CompileInfo,
    private readonly services: Services,
    private readonly viewer: Viewer | null,
  ) {}

  /** The registry's access condition on rows of `type` for this reader (object-types.ts), if any. */
  visible(type: ObjectName): Prisma.Sql[] {
    const condition = objectType(type).access.visible?.(this.viewer);
    return condition ? [condition] : [];
  }

  private type(name: string): GraphQLObjectType {
    return this.info.schema.getType(name) as GraphQLObjectType;
  }

  private subfields(typeName: string, nodes: readonly FieldNode[]): Map<string, readonly FieldNode[]> {
    const { schema, fragments, variableValues } = this.info;
    return collectSubfields(schema, fragments, variableValues, this.type(typeName), nodes);
  }

  /**
   * The plan of an object of `type` for the selections `nodes` (every field node that selects on
   * it), with `all` every scalar column rather than the selected ones.
   */
  object(type: ObjectName, nodes: readonly FieldNode[], all = false, atHand = false): ObjectPlan {
    const entry = OBJECTS[type];
    const alias = `t${this.aliases++}`;
    if (atHand) this.atHand.add(alias);
    // The key always: it says whether a to-one relation matched a row, and it is what `nodeId` and
    // cursors are made of. Nothing else unless selected (`carried` is for rows at hand).
    const scalars = new Set<string>(all ? Object.keys(entry.scalars) : [OBJECT_TYPES[type].key]);
    const relations: RelationPlan[] = [];
    for (const fieldNodes of this.subfields(type, nodes).values()) {
      const name = fieldNodes[0]!.name.value;
      if (name in entry.scalars) {
        scalars.add(name);
        continue;
      }
      const relation = RELATIONS[type][name];
      if (!relation) continue; // __typename
      // Field nodes of one response key may ask with other arguments when they come from other
      // paths (`nodes { x: pets(first: 1) }` beside `edges { node { x: pets(first: 2) } }`).
      for (const group of this.byArguments(type, fieldNodes)) {
        relations.push(this.nested(type, relation, group, alias));
      }
    }
    const plan: ObjectPlan = { type, alias, scalars: [...scalars], relations };
    if (!atHand) this.borrow(plan);
    return plan;
  }

  /**
   * The plan's `borrowed` scalars (relations.ts) that are selected, read from their relation's row
   * where the statement joins it: a join that matches a row whenever the scalar's own does (a foreign
   * key, no access rule on the target), so the value is the same and the row's own join goes unread.
   */
  private borrow(plan: ObjectPlan): void {
    const borrowed = (OBJECTS[plan.type] as ObjectEntry).borrowed;
    if (!borrowed) return;
    for (const [field, from] of Object.entries(borrowed)) {
      if (!plan.scalars.includes(field)) continue;
      const relation = RELATIONS[plan.type][from.relation]!;
      const joined = plan.relations.find(
        (r) => r.relation === relation && !r.error && !r.unjoined && r.relation.kind === 'one',
      );
      const one = relation as OneRelation;
      if (!joined || !one.foreignKey || one.via || this.visible(one.target).length) continue;
      plan.inherited = { ...plan.inherited, [field]: `${joined.child.alias}.${quote(from.field)}` };
    }
  }

  private byArguments(type: string, nodes: readonly FieldNode[]): FieldNode[][] {
    if (nodes.length === 1 || nodes.every((n) => !n.arguments?.length)) return [[...nodes]];
    const field = this.type(type).getFields()[nodes[0]!.name.value]!;
    const groups = new Map<string, FieldNode[]>();
    for (const node of nodes) {
      let key: string;
      try {
        key = JSON.stringify(getArgumentValues(field, node, this.info.variableValues), (_k, v: unknown) =>
          typeof v === 'bigint' ? v.toString() : v,
        );
      } catch {
        key = `node:${groups.size}`;
      }
      groups.set(key, [...(groups.get(key) ?? []), node]);
    }
    return [...groups.values()];
  }

  /** A relation below an object: its arguments refused become its error, not the statement's. */
  private nested(type: ObjectName, relation: Relation, nodes: FieldNode[], parentAlias: string): RelationPlan {
    try {
      return this.relation(type, relation, nodes, parentAlias);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return {
        nodes,
        relation,
        child: { type: relation.target, alias: '', scalars: [], relations: [] },
        error,
      };
    }
  }

  /**
   * A relation of `parentType` (a root field when `parentType` is Query) for `nodes`, its parent
   * row being `parentAlias` (null at the root).
   */
  relation(
    parentType: ParentName,
    relation: Relation,
    nodes: readonly FieldNode[],
    parentAlias: string | null,
  ): RelationPlan {
    const field = this.type(parentType).getFields()[nodes[0]!.name.value]!;
    const args = getArgumentValues(field, nodes[0]!, this.info.variableValues);
    if (relation.kind === 'one') {
      const key = 'arg' in relation.from ? args[relation.from.arg] : undefined;
      const on =
        'field' in relation.from ? Prisma.raw(`${parentAlias}.${quote(relation.from.field)}`) : Prisma.sql`${key}`;
      const child = this.object(relation.target, nodes);
      if (parentAlias === null && typeof key === 'bigint' && 'arg' in relation.from && !relation.via) {
        return { nodes, relation, on, child, key };
      }
      const target = OBJECT_TYPES[relation.target].key;
      if (
        relation.foreignKey &&
        'field' in relation.from &&
        child.relations.length === 0 &&
        child.scalars.length === 1 &&
        child.scalars[0] === target &&
        this.visible(relation.target).length === 0 &&
        !this.atHand.has(parentAlias!)
      ) {
        // Its key is the parent's field: the row is not read (a null key is no row, as unjoined).
        child.inherited = { [target]: `${parentAlias}.${quote(relation.from.field)}` };
        return { nodes, relation, on, child, unjoined: true };
      }
      if (relation.via) {
        child.inherited = Object.fromEntries(
          Object.entries(relation.via.fromParent).map(([f, parentField]) => [
            f,
            `${parentAlias}.${quote(parentField)}`,
          ]),
        );
      }
      return { nodes, relation, on, child };
    }
    const parent: ParentRef | null = parentAlias === null ? null : (f) => Prisma.raw(`${parentAlias}.${quote(f)}`);
    const page = relation.page(this.services, parent, args, this.visible(relation.target), this.viewer);
    const connectionType = getNamedType(field.type) as GraphQLObjectType;
    const edgeType = getNamedType(connectionType.getFields().edges!.type).name;
    const selections: FieldNode[] = [];
    let counted = false;
    let more = false;
    for (const fieldNodes of this.subfields(connectionType.name, nodes).values()) {
      const name = fieldNodes[0]!.name.value;
      if (name === 'nodes') selections.push(...fieldNodes);
      else if (name === 'totalCount') counted = true;
      else if (name === 'pageInfo') {
        const pageInfoType = getNamedType(connectionType.getFields().pageInfo!.type).name;
        for (const infoNodes of this.subfields(pageInfoType, fieldNodes).values()) {
          if (/^(hasNextPage|hasPreviousPage)$/.test(infoNodes[0]!.name.value)) more = true;
        }
      } else if (name === 'edges') {
        for (const edgeNodes of this.subfields(edgeType, fieldNodes).values()) {
          if (edgeNodes[0]!.name.value === 'node') selections.push(...edgeNodes);
        }
      }
    }
    const child = this.object(relation.target, selections);
    // Cursors are made of the sort's keys (`name` and `id` for pets by name), selected or not.
    for (const k of page.sort.keys) if (!child.scalars.includes(k.field)) child.scalars.push(k.field);
    return { nodes, relation, child, page, counted, trimmed: !more };
  }

  /**
   * One row of `plan.type` as a list of values: its scalars in `plan.scalars` order, then each
   * relation's, in `plan.relations` order (those refused left out): a to-one relation's values
   * inline (all null when no row matched: its key is null), a connection's rows and, when counted,
   * its count (`page`). Positions rather than keys: no key is written, sent or parsed per row.
   *
   * `text` false: the statement's own columns, for a root field's rows (the SQL reader parses int8
   * to bigint, timestamptz to Date). `text` true: the elements of a row of a nested page, an array of
   * text (`fromColumns` parses them by the column's kind). Either way PostgreSQL builds no JSON: W2's
   * statement cost 0.21 ms of PostgreSQL CPU as one `json_agg` of `json_build_array` rows, W6's
   * nested pages 0.36 ms as JSON and 0.21 ms as text arrays (docs/read-compiler.md).
   */
  columns(plan: ObjectPlan, text: boolean): Prisma.Sql[] {
    const cast = text ? '::text' : '';
    const parts: Prisma.Sql[] = plan.scalars.map((f) =>
      Prisma.raw(`${plan.inherited?.[f] ?? `${plan.alias}.${quote(f)}`}${cast}`),
    );
    for (const relation of plan.relations) {
      if (relation.error) continue;
      if (relation.relation.kind === 'one') parts.push(...this.columns(relation.child, text));
      else parts.push(...this.page(relation, text));
    }
    return parts;
  }

  /**
   * A nested connection's values in its parent's row: its rows as ONE text value, PostgreSQL's literal
   * of a two-dimensional text array (a row per page row, its `columns` as text), then its count when
   * selected. The form PostGraphile gives nested lists (`array(select array[...]::text[])::text`).
   */
  private page(plan: RelationPlan, text: boolean): Prisma.Sql[] {
    const rows = Prisma.sql`ARRAY(SELECT ARRAY[${Prisma.join(this.columns(plan.child, true), ', ')}] FROM ${this.pageRows(plan, true)})::text`;
    if (!plan.counted) return [rows];
    return [rows, text ? Prisma.sql`(${plan.page!.count})::text` : Prisma.sql`(${plan.page!.count})`];
  }

  /**
   * A page's rows as a FROM item: the service's candidate rows (its filter and cursor, neither order
   * nor limit), the to-one relations joined beside each, then the window's order and size. The
   * joins come below the `LIMIT`, as PostGraphile writes them: the candidate rows are a plain
   * subquery that PostgreSQL pulls up, so it walks the page's index in order and joins each row as
   * it goes, stopping at the limit, where joining to a finished page (the compiler's earlier form)
   * made it hash the whole target table for fifty rows (W2: inventory's 1,000 rows for 51 pets,
   * 0.138 -> 0.102 ms of PostgreSQL CPU). The row a page reads beyond its size (it says whether more
   * follow) is not read when no `hasNextPage`/`hasPreviousPage` is selected (`trimmed`).
   */
  private pageRows(plan: RelationPlan, correlated: boolean): Prisma.Sql {
    const { child } = plan;
    const page = plan.page!;
    return Prisma.sql`(${page.rows}) ${Prisma.raw(child.alias)} ${this.joins(child, correlated)} ORDER BY ${windowOrderBy(page.sort, page.window, child.alias)} ${limitSql(page.window, !plan.trimmed)}`;
  }

  /**
   * The to-one relations below `plan` (and theirs, to any depth) as LEFT JOIN LATERALs, written after
   * the FROM item that yields `plan`'s rows. Each is a simple subquery on a unique key, which
   * PostgreSQL pulls up into a plain join (hash, merge or nested loop, as the planner judges), where a
   * correlated subquery per row (the compiler's first form) ran a sub-plan per row and relation: W2's
   * statement took 0.81 ms of PostgreSQL CPU, 0.26 ms joined.
   *
   * Inside a nested page (`correlated`: its statement runs once per parent row), the planner costs
   * the join as if it ran once and merges with (or hashes) the whole target table to join a page of
   * ten rows, again for every parent (W6: a merge join read 186 inventory entries per category, 0.44
   * ms against 0.23 ms probed). There `LIMIT 1` (harmless on a unique key) keeps the join a per-row
   * index probe, which is what it is worth there.
   */
  joins(plan: ObjectPlan, correlated: boolean): Prisma.Sql {
    const parts: Prisma.Sql[] = [];
    const limit = correlated ? Prisma.raw(' LIMIT 1') : Prisma.empty;
    for (const relation of plan.relations) {
      if (relation.error || relation.relation.kind !== 'one' || relation.unjoined) continue;
      parts.push(
        Prisma.sql`LEFT JOIN LATERAL (${this.rowsOf(relation)}${limit}) ${Prisma.raw(relation.child.alias)} ON true`,
        this.joins(relation.child, correlated),
      );
    }
    return parts.length ? Prisma.join(parts, ' ') : Prisma.empty;
  }

  /** A to-one relation's rows: the target's own (or its `via`), by key, as its access rule allows. */
  private rowsOf(plan: RelationPlan): Prisma.Sql {
    const relation = plan.relation as OneRelation;
    const rows = relation.via?.rows ?? OBJECTS[relation.target].rows;
    const key = plan.keys
      ? Prisma.sql`${Prisma.raw(rows.key)} = ANY(${plan.keys}::bigint[])`
      : Prisma.sql`${Prisma.raw(rows.key)} = ${plan.on!}`;
    const where = [key, ...this.visible(relation.target)];
    return Prisma.sql`SELECT ${Prisma.raw(rows.select)} FROM ${Prisma.raw(rows.from)} WHERE ${Prisma.join(where, ' AND ')}`;
  }

  /** `columns` as the statement's output columns, named `c0`, `c1`, ... (unique, in order). */
  select(plan: ObjectPlan, first: Prisma.Sql[] = []): Prisma.Sql {
    const columns = this.columns(plan, false).map((c, i) => Prisma.sql`${c} AS ${Prisma.raw(`c${i}`)}`);
    return Prisma.join([...first, ...columns], ', ');
  }

  /**
   * A root field's statement: its rows as plain rows of columns (`columns`), in the page's order; a
   * counted page puts its count beside them (a row of nulls beside it when the page is empty).
   */
  statement(plan: RelationPlan): Prisma.Sql {
    const { child } = plan;
    const select = this.select(child);
    if (plan.relation.kind === 'one') {
      // A lookup by key (`keys`) joins its to-one relations as probes (`LIMIT 1`, as inside a nested
      // page): coalesced, it reads a few rows, and a generic plan of `= ANY($1)` would cost the joins
      // as if for ten and may hash whole tables.
      return Prisma.sql`SELECT ${select} FROM (${this.rowsOf(plan)}) ${Prisma.raw(child.alias)} ${this.joins(child, plan.keys !== undefined)}`;
    }
    const page = plan.page!;
    const rows = Prisma.sql`SELECT ${select} FROM ${this.pageRows(plan, false)}`;
    if (!plan.counted) return rows;
    // The sort keys are among the row's first columns, its scalars (`relation`).
    const order = Prisma.raw(
      page.sort.keys
        .map(
          (k) =>
            `r.c${child.scalars.indexOf(k.field)} ${(k.direction === 'asc') === page.window.forward ? 'ASC' : 'DESC'}`,
        )
        .join(', '),
    );
    return Prisma.sql`SELECT c.n, r.* FROM (${page.count}) c(n) LEFT JOIN LATERAL (${rows}) r ON true ORDER BY ${order}`;
  }
}

/** timestamptz's text as node-postgres parses it (the reader's own parser for root columns). */
const parseTimestamp = pgTypes.getTypeParser(pgTypes.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/** A column of a nested page's row, as text, parsed to what its field's resolver expects. */
function fromText(text: string, kind: ScalarKind): unknown {
  switch (kind) {
    case 'id':
      return BigInt(text);
    case 'datetime':
      return parseTimestamp(text);
    case 'int':
      return Number(text);
    case 'bool':
      return text === 'true';
    case 'text':
      return text;
  }
}

/** Reads a row's values (`Compilation.columns`) in order, from `at`; `text`: a nested page's row. */
class Columns {
  constructor(
    private readonly values: unknown[],
    readonly text: boolean,
    public at = 0,
  ) {}

  next(): unknown {
    return this.values[this.at++];
  }
}

/**
 * The row of `plan.type` from its values (`Compilation.columns`), its compiled relations stored on
 * it, or null when its key is null (a to-one relation that matched no row). A plan without scalars
 * (the relations of rows at hand, `readRelationsOf`) always yields its row.
 */
function fromColumns(columns: Columns, plan: ObjectPlan): Record<string | symbol, unknown> | null {
  const kinds = OBJECTS[plan.type].scalars as Record<string, ScalarKind>;
  const row: Record<string | symbol, unknown> = {};
  for (const field of plan.scalars) {
    const value = columns.next();
    // An inherited column (`Pet.inventory`'s status) may be set on a row that did not match.
    row[field] = value == null ? null : columns.text ? fromText(value as string, kinds[field]!) : value;
  }
  let compiled: Map<FieldNode, unknown> | undefined;
  for (const relation of plan.relations) {
    const value = relation.error
      ? new CompiledError(relation.error)
      : relation.relation.kind === 'one'
        ? fromColumns(columns, relation.child)
        : fromPage(columns, relation);
    compiled ??= new Map();
    for (const node of relation.nodes) compiled.set(node, value);
  }
  if (plan.scalars.length && row[OBJECT_TYPES[plan.type].key] == null) return null;
  if (compiled) row[COMPILED] = compiled;
  return row;
}

/**
 * A nested connection's page from its values (`Compilation.page`): its rows from PostgreSQL's array
 * literal, parsed with postgres-array (node-postgres's and Prisma's own parser of array literals,
 * quoting and escapes included), then its count when counted.
 */
function fromPage(columns: Columns, plan: RelationPlan): unknown {
  const literal = columns.next() as string;
  const count = plan.counted ? Number(columns.next()) : 0;
  const nodes = (parseArray(literal) as unknown as unknown[][]).map((values) =>
    fromColumns(new Columns(values, true), plan.child)!,
  );
  return page(nodes, plan, count);
}

/** What a connection's resolver returns for `nodes` read in the page's window order. */
function page(nodes: object[], plan: RelationPlan, count: number): unknown {
  const { window, sort } = plan.page!;
  // Not counted: `totalCount` is not selected, and nothing reads it.
  return buildPage<object>(nodes, window, sort, count);
}

/** The output column (`Compilation.select`) of a row's key: its scalars come first, in order. */
function keyColumn(plan: ObjectPlan): string {
  return `c${plan.scalars.indexOf(OBJECT_TYPES[plan.type].key)}`;
}

/**
 * Serves a root query field (`pets`, `pet(id)`, ...) in one statement: what its resolver returns,
 * with every relation selected below compiled in.
 */
export async function readRoot(services: Services, viewer: Viewer | null, info: GraphQLResolveInfo): Promise<unknown> {
  return readTopLevel(services, viewer, info, 'Query');
}

/**
 * A field of an object with no row of its own (`Query`, `Me`), served like a root field: its
 * relation in the table, everything below compiled in, in one statement.
 */
export async function readTopLevel(
  services: Services,
  viewer: Viewer | null,
  info: GraphQLResolveInfo,
  parentType: 'Query' | 'Me',
): Promise<unknown> {
  const relation = RELATIONS[parentType][info.fieldName];
  if (!relation) throw new Error(`no compiled read for ${parentType}.${info.fieldName}`);
  const compilation = new Compilation(info, services, viewer);
  const plan = compilation.relation(parentType, relation, info.fieldNodes, null);
  const statement = compilation.statement(plan);
  // A lookup by key goes as it always went (`= $1`); coalesced with others of its turn, the batch
  // is the same read over their keys (db/coalesce.ts).
  // Any other (a page) is shared with the same statement asked alike in its turn.
  const key = plan.key;
  if (key !== undefined)
    readsByKey(statement, key, keyColumn(plan.child), (keys) => compilation.statement({ ...plan, keys }));
  else readsShared(statement, 'busy');
  const rows = await services.reader.query<Record<string, unknown>>(statement);
  if (plan.relation.kind === 'one')
    return rows[0] ? fromColumns(new Columns(Object.values(rows[0]), false), plan.child) : null;
  // A counted page's rows start with the count; an empty one is a single row of nulls beside it.
  const start = plan.counted ? 1 : 0;
  const rowKey = keyColumn(plan.child);
  const nodes: object[] = [];
  for (const row of rows) {
    // That row of nulls is no row: its nested pages' columns are null too, not page literals.
    if (row[rowKey] == null) continue;
    const node = fromColumns(new Columns(Object.values(row), false, start), plan.child);
    if (node) nodes.push(node);
  }
  return page(nodes, plan, plan.counted ? (rows[0]?.n as number) : 0);
}

/**
 * Rows of `type` by key, in one statement, with the relations that `nodes` select below compiled in
 * (entities.ts). Every scalar column is read: the rows are the type's full object source.
 */
export async function readByKeys(
  services: Services,
  viewer: Viewer | null,
  info: CompileInfo,
  type: ObjectName,
  nodes: readonly FieldNode[],
  keys: readonly bigint[],
): Promise<Record<string | symbol, unknown>[]> {
  const compilation = new Compilation(info, services, viewer);
  const plan = compilation.object(type, nodes, true);
  const rows = OBJECTS[type].rows;
  const list = [...keys];
  const where = [Prisma.sql`${Prisma.raw(rows.key)} = ANY(${list}::bigint[])`, ...compilation.visible(type)];
  const statement = Prisma.sql`SELECT ${compilation.select(plan)} FROM (SELECT ${Prisma.raw(rows.select)} FROM ${Prisma.raw(rows.from)} WHERE ${Prisma.join(where, ' AND ')}) ${Prisma.raw(plan.alias)} ${compilation.joins(plan, false)}`;
  const result = await services.reader.query<Record<string, unknown>>(readsByKeys(statement, list, keyColumn(plan)));
  return result.map((row) => fromColumns(new Columns(Object.values(row), false), plan)!);
}

/** The SQL array type a carried field of given rows is bound as (`readRelationsOf`). */
const ARRAY_TYPES: Record<ScalarKind, string> = {
  id: 'bigint[]',
  datetime: 'timestamptz[]',
  int: 'int[]',
  bool: 'boolean[]',
  text: 'text[]',
};

/**
 * The relations that `nodes` select below rows already at hand (a mutation's result, an event's
 * object), read in ONE statement for all of them: the rows' carried fields (`carried`: their keys
 * and whatever a relation joins on) are bound as arrays and unnested into the FROM item that the
 * relations join to, exactly as a root field's rows are. The rows' own fields are kept as they
 * came (a deleted object is answered as it was); what is returned is each row with its compiled
 * relations stored on it. No relation selected: no statement.
 */
export async function readRelationsOf(
  services: Services,
  viewer: Viewer | null,
  info: CompileInfo,
  type: ObjectName,
  nodes: readonly FieldNode[],
  rows: readonly Record<string, unknown>[],
): Promise<Record<string | symbol, unknown>[]> {
  const compilation = new Compilation(info, services, viewer);
  const plan = compilation.object(type, nodes, false, true);
  if (plan.relations.length === 0 || rows.length === 0) return [...rows];
  const entry = OBJECTS[type];
  const scalars = entry.scalars as Record<string, ScalarKind>;
  const carried = entry.carried;
  const arrays = carried.map(
    (f) => Prisma.sql`${rows.map((r) => r[f] ?? null)}::${Prisma.raw(ARRAY_TYPES[scalars[f]!])}`,
  );
  const columns = Prisma.raw([...carried, '$ord'].map(quote).join(', '));
  const relationsOnly: ObjectPlan = { ...plan, scalars: [] };
  const alias = Prisma.raw(plan.alias);
  // The ordinal first: a row has a column even when every relation selected was refused.
  // Every subscriber of one document reads the same statement for an event: sent once a turn (db/coalesce.ts).
  const result = await services.reader.query<Record<string, unknown>>(
    readsShared(
      Prisma.sql`SELECT ${compilation.select(relationsOnly, [Prisma.sql`${alias}."$ord" AS ord`])} FROM unnest(${Prisma.join(arrays, ', ')}) WITH ORDINALITY AS ${alias}(${columns}) ${compilation.joins(plan, false)} ORDER BY ${alias}."$ord"`,
    ),
  );
  return result.map((row, i) => ({
    ...rows[i],
    ...fromColumns(new Columns(Object.values(row), false, 1), relationsOnly)!,
  }));
}
