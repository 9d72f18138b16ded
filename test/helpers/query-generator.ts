/**
 * A seeded random generator of read operations over the public schema (schema.graphql), for the
 * differential and statement-count tests (test/graphql/generated-reads.test.ts) and the bench's
 * generated workload (bench/generated.ts). It knows the schema only through graphql-js's type
 * system: every object field, argument and input type is reached by walking the types, so a field
 * added to the schema is generated without touching this file. What it knows of the domain is where
 * argument VALUES come from (ids, names and cursors learned from the database by `primeReadPool`).
 *
 * Each operation comes from its own seed (`generate(seed)`): a failing one replays alone, given the
 * same data, by generating that seed again. Every operation returned is valid against the schema
 * and inside the limits of src/policy/limits.ts (tokens, depth, aliases, directives, cost): a draw
 * outside them is thrown away and drawn again from the same PRNG, so the seed still replays it.
 * Some operations are valid GraphQL that the gateway must refuse (a page of 101, a cursor of
 * another ordering, an id that is not one): their errors are part of what is compared.
 *
 * Hand-written rather than built on fast-check's arbitraries: the walk needs state shared across the
 * whole document (declared variables, fragments, alias and directive budgets, unique response names
 * per selection set), which arbitraries compose badly; shrinking would not help either, since the
 * failing document is printed whole. The PRNG is a 32-bit mulberry32 (public domain, a few lines).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isObjectType,
  parse,
  specifiedRules,
  validate,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { loadConfig, type Config } from '../../src/config';
import { createLimits } from '../../src/policy/limits';

/**
 * Root fields that are not data reads: `me` answers who is calling (each app of a comparison holds
 * its own key, so its answer differs by design) and reads no row of its own; its orders are tested
 * with two customers and staff in test/http/identity.test.ts. Left out, the generated stream of every
 * seed stays what it was before `me` existed.
 */
const NOT_GENERATED = new Set(['me']);

/** A seeded PRNG with the few draws the generator needs. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** `k` distinct items, in the list's order. */
  some<T>(items: readonly T[], k: number): T[] {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(k, items.length)) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }
}

/** The seed of operation `index` of a run seeded `runSeed` (so one operation replays alone). */
export function operationSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed ^ 0x9e3779b9, 2654435761) + Math.imul(index + 1, 0x85ebca6b)) >>> 0;
}

/** The entity types whose ids arguments name (`id`, `petId`, `categoryId`). */
export type EntityName = 'Category' | 'Pet' | 'Order';

/** What the generator knows of the data: ids and names that exist, and cursors per connection. */
export interface ReadPool {
  ids: Record<EntityName, string[]>;
  /** Pet names, for `nameContains`. */
  names: string[];
  /** Cursors by `cursorKey(...)`. */
  cursors: Record<string, string[]>;
}

/** Runs one operation (in-process or over HTTP) and returns its JSON answer. */
export type ExecuteRead = (
  query: string,
  variables?: Record<string, unknown>,
) => Promise<{ data?: unknown; errors?: unknown[] }>;

/** Cursors are made per connection field and ordering: a pool entry is keyed by both. */
export function cursorKey(
  parentType: string,
  field: string,
  orderBy?: { field?: unknown; direction?: unknown },
): string {
  const order = orderBy ? `${String(orderBy.field)}:${String(orderBy.direction ?? 'ASC')}` : 'default';
  return `${parentType}.${field}|${order}`;
}

/** A read the generator made: the document, its variables, and what a failure report needs. */
export interface GeneratedRead {
  seed: number;
  query: string;
  variables: Record<string, unknown>;
  /** Root fields selected (by field name; a name twice when aliased twice). */
  rootFields: string[];
  /** The root response keys (alias or field name), in the order of `rootFields`. */
  rootKeys: string[];
  /** Draws thrown away before this one (outside the limits or invalid). */
  redraws: number;
}

/** Limits the generated reads must stay within (src/policy/limits.ts; the defaults of config.ts). */
export type ReadLimits = Config['limits'];

/** The limits a server started with no configuration enforces. */
export const defaultReadLimits = (): ReadLimits => loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }).limits;

/** The committed schema (what clients see), as graphql-js types. */
export function loadPublicSchema(root = path.resolve(__dirname, '..', '..')): GraphQLSchema {
  // Compiled copies (dist/test/helpers, for the bench) find it one level further up.
  const candidates = [path.join(root, 'schema.graphql'), path.resolve(root, '..', 'schema.graphql')];
  const file = candidates.find((f) => fs.existsSync(f));
  if (!file) throw new Error(`schema.graphql not found from ${root}`);
  return buildSchema(fs.readFileSync(file, 'utf8'));
}

const ENTITY_TYPES = new Set(['Category', 'Pet', 'Order', 'InventoryItem']);
const MAX_RELATION_DEPTH = 4;
const TWO_POW_53 = 2n ** 53n;

/** A field from one entity to another (or to a page of others): one level of relation depth. */
const isRelation = (parent: GraphQLObjectType, target: GraphQLObjectType) =>
  ENTITY_TYPES.has(parent.name) && (ENTITY_TYPES.has(target.name) || target.name.endsWith('Connection'));

/** Which entity an ID argument or input field names. */
function entityOfId(name: string, returnType: string): EntityName {
  if (name === 'petId') return 'Pet';
  if (name === 'categoryId') return 'Category';
  if (returnType === 'Category' || returnType === 'Pet' || returnType === 'Order') return returnType;
  return 'Pet';
}

/** One operation being drawn: the document's shared state. */
class Draw {
  readonly variableDefs: string[] = [];
  readonly variables: Record<string, unknown> = {};
  readonly fragments: string[] = [];
  aliases = 0;
  directives = 0;
  private counter = 0;

  constructor(
    readonly rng: Rng,
    readonly pool: ReadPool,
    readonly limits: ReadLimits,
  ) {}

  fresh(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  /** A value as a literal in the document, or as a variable (declared, its value recorded). */
  argument(type: GraphQLInputType, value: unknown): string {
    if (this.rng.chance(0.35)) {
      const name = this.fresh('v');
      const typeText = String(type);
      // Sometimes a default value in the declaration instead of a value sent.
      if (this.rng.chance(0.15) && value !== undefined) {
        this.variableDefs.push(`$${name}: ${typeText.replace(/!$/, '')} = ${literal(type, value)}`);
      } else {
        this.variableDefs.push(`$${name}: ${typeText}`);
        this.variables[name] = value;
      }
      return `$${name}`;
    }
    return literal(type, value);
  }

  /** ` @skip(...)` / ` @include(...)` or nothing; `keep` says whether the result must include it. */
  directive(keep?: boolean): string {
    if (this.directives >= this.limits.directives - 5 || !this.rng.chance(0.12)) return '';
    this.directives++;
    const skip = this.rng.chance(0.5);
    const include = keep ?? this.rng.chance(0.7);
    const condition = skip ? !include : include;
    const arg = this.rng.chance(0.4) ? this.booleanVariable(condition) : String(condition);
    return ` @${skip ? 'skip' : 'include'}(if: ${arg})`;
  }

  private booleanVariable(value: boolean): string {
    const name = this.fresh('b');
    this.variableDefs.push(`$${name}: Boolean!`);
    this.variables[name] = value;
    return `$${name}`;
  }

  id(entity: EntityName): string {
    const known = this.pool.ids[entity];
    const r = this.rng.next();
    if (r < 0.75 && known.length) return this.rng.pick(known);
    if (r < 0.83) return String(this.rng.int(900_000, 999_999)); // no such row
    if (r < 0.93) return (TWO_POW_53 + BigInt(this.rng.int(1, 1000))).toString(); // above 2^53, usually absent
    return this.rng.pick(['0', '-3', 'abc', '1.5', '99999999999999999999999']); // not an id
  }
}

/** A GraphQL literal for `value` of input type `type`. */
function literal(type: GraphQLInputType, value: unknown): string {
  const named = getNullableType(type);
  if (value === null) return 'null';
  if (isListType(named)) return `[${(value as unknown[]).map((v) => literal(named.ofType, v)).join(', ')}]`;
  if (isInputObjectType(named)) {
    const fields = named.getFields();
    const entries = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${k}: ${literal(fields[k]!.type, v)}`,
    );
    return `{ ${entries.join(', ')} }`;
  }
  if (isEnumType(named)) return String(value);
  if (named.name === 'ID' && typeof value === 'string' && /^\d{1,25}$/.test(value)) return value; // Int literal
  return JSON.stringify(value);
}

/** The generator: `generate(seed)` is one valid read, the same for the same seed and pool. */
export interface ReadGenerator {
  generate(seed: number): GeneratedRead;
  /** Root fields of Query, to check that a run covers all of them. */
  rootFieldNames: string[];
}

export function createReadGenerator(options: {
  schema?: GraphQLSchema;
  pool: ReadPool;
  limits?: ReadLimits;
  /** Probability that a read carries an argument the gateway refuses (default 0.08). */
  invalidRate?: number;
}): ReadGenerator {
  const schema = options.schema ?? loadPublicSchema();
  const limits = options.limits ?? defaultReadLimits();
  const checker = createLimits(limits);
  const queryType = schema.getQueryType()!;
  const rules = [...specifiedRules, ...checker.validationRules];
  const invalidRate = options.invalidRate ?? 0.08;

  function draw(rng: Rng): Omit<GeneratedRead, 'seed' | 'redraws'> {
    const d = new Draw(rng, options.pool, limits);
    const invalid = rng.chance(invalidRate);
    let invalidLeft = invalid ? 1 : 0;

    /** Argument values for a field, or null when it takes none. */
    function argumentsFor(parent: GraphQLObjectType, field: GraphQLField<unknown, unknown>, rows: number) {
      const args = field.args;
      if (!args.length) return { text: '', pageSize: 1 };
      const parts: string[] = [];
      let pageSize = 1;
      const byName = new Map(args.map((a) => [a.name, a]));
      const returnName = getNamedType(field.type).name;
      const values: Record<string, unknown> = {};

      // Relay pages: forwards (first/after) or, where offered, backwards (last/before).
      if (byName.has('first')) {
        const backwards = byName.has('last') && rng.chance(0.3);
        const sizeArg = backwards ? 'last' : 'first';
        const cursorArg = backwards ? 'before' : 'after';
        // Keep nested pages small enough for the cost budget: the sizes multiply.
        const cap = Math.max(1, Math.min(100, Math.floor(250 / rows)));
        if (invalidLeft && rng.chance(0.3)) {
          invalidLeft--;
          values[sizeArg] = rng.pick([0, 101, -1]);
        } else if (rng.chance(0.85) || rows > 1) {
          values[sizeArg] = rng.chance(0.2) ? Math.min(cap, rng.pick([1, 2, 3])) : rng.int(1, cap);
        }
        pageSize =
          typeof values[sizeArg] === 'number' && (values[sizeArg] as number) > 0 ? (values[sizeArg] as number) : 20;
        if (byName.has('orderBy') && rng.chance(0.4)) {
          values.orderBy = { field: rng.pick(['ID', 'NAME']), direction: rng.pick(['ASC', 'DESC']) };
          if (rng.chance(0.2)) delete (values.orderBy as Record<string, unknown>).direction;
        }
        if (rng.chance(0.35)) {
          const key = cursorKey(parent.name, field.name, values.orderBy as { field: string });
          const known = d.pool.cursors[key] ?? [];
          if (invalidLeft && rng.chance(0.3)) {
            invalidLeft--;
            const other = Object.values(d.pool.cursors).flat();
            values[cursorArg] = rng.chance(0.5) && other.length ? rng.pick(other) : 'bm90LWEtY3Vyc29y';
          } else if (known.length) values[cursorArg] = rng.pick(known);
        }
        if (byName.has('filter') && rng.chance(0.4)) values.filter = inputValue(byName.get('filter')!, returnName);
      } else {
        for (const arg of args) {
          if (getNullableType(arg.type) !== arg.type || rng.chance(0.5)) values[arg.name] = inputValue(arg, returnName);
        }
      }
      for (const arg of args) {
        if (!(arg.name in values)) continue;
        parts.push(`${arg.name}: ${d.argument(arg.type, values[arg.name])}`);
      }
      return { text: parts.length ? `(${parts.join(', ')})` : '', pageSize };
    }

    function inputValue(arg: Pick<GraphQLArgument, 'name' | 'type'>, returnName: string): unknown {
      const type = getNullableType(arg.type);
      if (isInputObjectType(type)) {
        const out: Record<string, unknown> = {};
        const fields = Object.values(type.getFields());
        for (const f of rng.some(fields, rng.int(1, fields.length))) out[f.name] = inputValue(f, returnName);
        return out;
      }
      if (isListType(type)) return [inputValue({ name: arg.name, type: type.ofType }, returnName)];
      if (isEnumType(type)) return rng.pick(type.getValues()).name;
      switch (type.name) {
        case 'ID': {
          const id = d.id(entityOfId(arg.name, returnName));
          if (!/^\d+$/.test(id)) {
            if (!invalidLeft) return options.pool.ids[entityOfId(arg.name, returnName)][0] ?? '1';
            invalidLeft--;
          }
          return id;
        }
        case 'Int':
          return rng.int(0, 30);
        case 'Boolean':
          return rng.chance(0.5);
        case 'String': {
          const name = options.pool.names.length ? rng.pick(options.pool.names) : 'pet';
          const start = rng.int(0, Math.max(0, name.length - 1));
          const piece = name.slice(start, start + rng.int(1, 4));
          return rng.pick([piece, piece.toUpperCase(), '%', '_', 'é', piece]);
        }
        default:
          return null;
      }
    }

    /**
     * The selection set of `type`, `depth` fields deep (the depth limit's count), `relations` entity
     * levels deep, for `rows` parents at once (the product of the page sizes above: the cost budget).
     */
    function selection(type: GraphQLObjectType, depth: number, relations: number, rows: number): string {
      const used = new Set<string>();
      const items: string[] = [];
      const fields = Object.values(type.getFields());
      const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
      const objects = fields.filter((f) => isObjectType(getNamedType(f.type)));
      const isConnection = type.name.endsWith('Connection');
      const isEdge = type.name.endsWith('Edge');

      const addLeaf = (f: GraphQLField<unknown, unknown>) => {
        const name = used.has(f.name) || (d.aliases < limits.aliases - 3 && rng.chance(0.08)) ? alias(f.name) : '';
        used.add(name || f.name);
        items.push(`${name ? `${name}: ` : ''}${f.name}${d.directive()}`);
      };
      const alias = (base: string) => {
        d.aliases++;
        return d.fresh(`${base}_`);
      };

      // Leaves: `id` mostly (answers compare better with it), then a random few.
      const chosenLeaves = rng.some(leaves, rng.int(isConnection || isEdge ? 0 : 1, Math.min(3, leaves.length)));
      const id = leaves.find((f) => f.name === 'id');
      if (id && !chosenLeaves.includes(id) && rng.chance(0.7)) chosenLeaves.unshift(id);
      for (const f of chosenLeaves) addLeaf(f);
      if (rng.chance(0.05)) items.push(`__typename`);
      if (id && used.has('id') && rng.chance(0.05)) items.push('id'); // the same field twice, merged

      // Object fields: relations only while the relation depth allows, and within the depth limit.
      const canNest = (f: GraphQLField<unknown, unknown>) => {
        const target = getNamedType(f.type) as GraphQLObjectType;
        if (isRelation(type, target) && relations >= MAX_RELATION_DEPTH) return false;
        // A connection needs 3 more levels (connection, edges/nodes, a leaf): keep room for them.
        const needs = target.name.endsWith('Connection') ? 3 : 2;
        return depth + needs <= limits.depth;
      };
      const nestable = objects.filter(canNest);
      const wanted = isConnection || isEdge ? rng.int(1, nestable.length) : rng.int(0, Math.min(2, nestable.length));
      for (const f of rng.some(nestable, wanted)) {
        const target = getNamedType(f.type) as GraphQLObjectType;
        const nextRelations = isRelation(type, target) ? relations + 1 : relations;
        const times = f.args.length && d.aliases < limits.aliases - 4 && rng.chance(0.15) ? 2 : 1; // twins
        for (let i = 0; i < times; i++) {
          const args = argumentsFor(type, f, rows);
          const childRows =
            isListType(getNullableType(f.type)) || target.name.endsWith('Connection') ? rows * args.pageSize : rows;
          const inner = selection(target, depth + 1, nextRelations, childRows);
          const name =
            times > 1 || used.has(f.name) || (d.aliases < limits.aliases - 3 && rng.chance(0.1)) ? alias(f.name) : '';
          used.add(name || f.name);
          items.push(`${name ? `${name}: ` : ''}${f.name}${args.text}${d.directive()} { ${inner} }`);
        }
      }
      if (!items.length) items.push(chosenLeaves.length || !leaves.length ? '__typename' : leaves[0]!.name);

      // Some of the items moved into an inline fragment or a named fragment of this type.
      if (items.length > 1 && rng.chance(0.25)) {
        const moved = rng.some(items, rng.int(1, items.length - 1));
        const rest = items.filter((i) => !moved.includes(i));
        if (rng.chance(0.5)) {
          const cond = rng.chance(0.5) ? ` on ${type.name}` : '';
          rest.push(`...${cond}${d.directive(true)} { ${moved.join(' ')} }`);
        } else {
          const fragment = d.fresh(`${type.name}Part`);
          d.fragments.push(`fragment ${fragment} on ${type.name} { ${moved.join(' ')} }`);
          rest.push(`...${fragment}${d.directive(true)}`);
        }
        return rest.join(' ');
      }
      return items.join(' ');
    }

    // Root fields: one to three, any of Query's, sometimes one twice under two aliases.
    const roots = Object.values(queryType.getFields()).filter((f) => !NOT_GENERATED.has(f.name));
    const rootItems: string[] = [];
    const rootFields: string[] = [];
    const rootKeys: string[] = [];
    const usedRoots = new Set<string>();
    const count = rng.chance(0.55) ? 1 : rng.int(2, 3);
    for (let i = 0; i < count; i++) {
      const f = rng.pick(roots);
      const target = getNamedType(f.type) as GraphQLObjectType;
      const args = argumentsFor(queryType, f, 1);
      const rows = isListType(getNullableType(f.type)) || target.name.endsWith('Connection') ? args.pageSize : 1;
      const inner = selection(target, 2, 1, rows);
      const name = usedRoots.has(f.name) || rng.chance(0.1) ? d.fresh(`${f.name}_`) : '';
      if (name) d.aliases++;
      usedRoots.add(name || f.name);
      rootFields.push(f.name);
      rootKeys.push(name || f.name);
      rootItems.push(`${name ? `${name}: ` : ''}${f.name}${args.text} { ${inner} }`);
    }
    const defs = d.variableDefs.length ? `(${d.variableDefs.join(', ')})` : '';
    const query = [`query Generated${defs} { ${rootItems.join(' ')} }`, ...d.fragments].join('\n');
    return { query, variables: d.variables, rootFields, rootKeys };
  }

  /** Null when the read is valid and within every limit; the reason otherwise. */
  function rejection(query: string, variables: Record<string, unknown>): string | null {
    let document;
    try {
      document = parse(query, { maxTokens: limits.tokens });
    } catch (error) {
      return (error as Error).message;
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return errors[0]!.message;
    const cost = checker.costError(schema, document, variables);
    return cost ? cost.message : null;
  }

  return {
    rootFieldNames: Object.keys(queryType.getFields()).filter((f) => !NOT_GENERATED.has(f)),
    generate(seed) {
      const rng = new Rng(seed);
      for (let redraws = 0; redraws < 200; redraws++) {
        const read = draw(rng);
        if (rejection(read.query, read.variables) === null) return { seed, ...read, redraws };
      }
      throw new Error(`query generator: no valid read after 200 draws (seed ${seed})`);
    },
  };
}

/**
 * Learns ids, names and cursors from the data through the API itself (first queries whose answers
 * feed later ones): every connection's cursors, for each ordering `pets` offers, and nested pages'
 * cursors under a few parents.
 */
export async function primeReadPool(execute: ExecuteRead): Promise<ReadPool> {
  const pool: ReadPool = { ids: { Category: [], Pet: [], Order: [] }, names: [], cursors: {} };
  type Edges = { edges: { cursor: string; node: Record<string, string> }[] };
  const ok = async (query: string, variables?: Record<string, unknown>) => {
    const answer = await execute(query, variables);
    if (answer.errors?.length) throw new Error(`priming query failed: ${JSON.stringify(answer.errors)}`);
    return answer.data as Record<string, Edges & Record<string, Edges>>;
  };
  const add = (key: string, page: Edges) => {
    (pool.cursors[key] ??= []).push(...page.edges.map((e) => e.cursor));
  };

  const first = await ok(`{
    categories(first: 100) { edges { cursor node { id } } }
    pets(first: 100) { edges { cursor node { id name } } }
    orders(first: 100) { edges { cursor node { id petId } } }
    inventoryItems(first: 100) { edges { cursor node { petId } } }
  }`);
  pool.ids.Category = first.categories!.edges.map((e) => e.node.id!);
  pool.ids.Pet = first.pets!.edges.map((e) => e.node.id!);
  pool.ids.Order = first.orders!.edges.map((e) => e.node.id!);
  pool.names = first.pets!.edges.map((e) => e.node.name!);
  for (const field of ['categories', 'pets', 'orders', 'inventoryItems']) add(cursorKey('Query', field), first[field]!);

  for (const orderField of ['ID', 'NAME']) {
    for (const direction of ['ASC', 'DESC']) {
      const orderBy = { field: orderField, direction };
      const page = await ok(`query ($o: PetOrder) { pets(first: 100, orderBy: $o) { edges { cursor node { id } } } }`, {
        o: orderBy,
      });
      add(cursorKey('Query', 'pets', orderBy), page.pets!);
    }
  }
  for (const id of pool.ids.Category.slice(0, 5)) {
    const page = await ok(
      `query ($id: ID!) { category(id: $id) { pets(first: 100) { edges { cursor node { id } } } } }`,
      {
        id,
      },
    );
    if (page.category) add(cursorKey('Category', 'pets'), page.category.pets!);
  }
  const orderedPets = [...new Set(first.orders!.edges.map((e) => e.node.petId).filter(Boolean))].slice(0, 5);
  for (const id of orderedPets) {
    const page = await ok(`query ($id: ID!) { pet(id: $id) { orders(first: 100) { edges { cursor node { id } } } } }`, {
      id,
    });
    if (page.pet) add(cursorKey('Pet', 'orders'), page.pet.orders!);
  }
  return pool;
}
