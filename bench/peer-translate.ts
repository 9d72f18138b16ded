/**
 * A generated gateway read (test/helpers/query-generator.ts) in PostGraphile's schema (T2, peer.ts),
 * for the subset PostGraphile answers with the SAME meaning, or the reason it cannot be asked.
 *
 * Walks the gateway document with graphql-js over a table of what each gateway field is in
 * PostGraphile (FIELDS below): root lookups (`pet(id)` → `petByRowId(rowId)`), to-one relations
 * (`category` → `categoryByCategoryId`), InventoryItem.status (the pet's, documented so: PostGraphile's
 * `petByPetId { status }` under the same key, unwrapped when compared), connections with their fixed order (`orders`: newest first =
 * `PRIMARY_KEY_DESC`), `pets`' `orderBy` (NAME ties broken by id in the same direction =
 * `[NAME_DESC, PRIMARY_KEY_DESC]`), filters that are equality tests (`condition`), the gateway's
 * default page of 20 made explicit (PostGraphile's default is every row), `totalCount`, `pageInfo`,
 * `edges`/`nodes`, aliases, fragments (inlined in place, so response keys keep their order),
 * `@skip`/`@include` and variables (kept where the argument is a scalar, retyped to the peer's type;
 * object arguments are written as literals from their values). Every translated field carries the
 * gateway's response key as its alias, so both answers have the same keys; what still differs by
 * design is said per response key (`kinds`): cursors and global ids (`nodeId`, PostGraphile's `id`:
 * each server's own, compared as present or null), enum values (PostGraphile keeps PostgreSQL's lower
 * case), timestamps (PostgreSQL's text against ISO instants).
 *
 * Not translated, each with its reason (the shape is skipped): a cursor argument (cursors are each
 * server's own; a shape with one is not the same question to both), `node`/`nodes` (their arguments
 * are global ids, each server's own), a filter that is not an equality (`nameContains`,
 * `quantityBelow`) or is not on the table's own columns (InventoryFilter.status, the pet's),
 * `inventorySummary` (an
 * aggregate PostGraphile does not offer). The translation is validated against PostGraphile's
 * introspected schema: a failure there is the translator's bug and is reported as its own reason.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isLeafType,
  Kind,
  parse,
  print,
  specifiedRules,
  TypeInfo,
  typeFromAST,
  validate,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntrospectionQuery,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

/** How a response key's values differ between the servers by design (canonicalised on both sides). */
export type KeyKind = 'opaque' | 'enum' | 'timestamp';

/** A translated read: T2's document and variables, and the response keys to canonicalise. */
export interface PeerRead {
  query: string;
  variables: Record<string, unknown>;
  kinds: Record<string, KeyKind>;
}

export type Translation = { ok: true; read: PeerRead } | { ok: false; reason: string };

/** A scalar field: PostGraphile's name, and how its values differ. */
interface LeafSpec {
  leaf: string;
  kind?: KeyKind;
}
/** A to-one field (root lookups: their key argument's name in PostGraphile). */
interface OneSpec {
  one: string;
  args?: Record<string, string>;
}
/** A connection: PostGraphile's field, its fixed order (or `pets`' orderBy), its filter's equalities. */
interface PageSpec {
  page: string;
  order: string[] | 'petOrder';
  filter?: Record<string, { to: string; kind?: 'enum' | 'id' }>;
}
/** A scalar the gateway flattens from a to-one relation: PostGraphile's relation with that one leaf. */
interface ViaSpec {
  via: string;
  leaf: string;
  kind: KeyKind;
}
type FieldSpec = LeafSpec | OneSpec | PageSpec | ViaSpec | { same: true; kind?: KeyKind } | { unsupported: string };

const GLOBAL_IDS = { unsupported: 'node/nodes: their arguments are global ids, each server’s own' };
/** The field `nodeId` is PostGraphile's `id`: an opaque global id on both sides, compared as present. */
const NODE_ID: LeafSpec = { leaf: 'id', kind: 'opaque' };
const PET_FILTER: PageSpec['filter'] = {
  status: { to: 'status', kind: 'enum' },
  categoryId: { to: 'categoryId', kind: 'id' },
};

/** Every gateway object type's fields as PostGraphile's; a field not here is not translated. */
const FIELDS: Record<string, Record<string, FieldSpec>> = {
  Query: {
    pet: { one: 'petByRowId', args: { id: 'rowId' } },
    category: { one: 'categoryByRowId', args: { id: 'rowId' } },
    order: { one: 'orderByRowId', args: { id: 'rowId' } },
    inventory: { one: 'inventoryItemByPetId', args: { petId: 'petId' } },
    pets: { page: 'allPets', order: 'petOrder', filter: PET_FILTER },
    categories: { page: 'allCategories', order: ['PRIMARY_KEY_ASC'] },
    orders: {
      page: 'allOrders',
      order: ['PRIMARY_KEY_DESC'],
      filter: { complete: { to: 'complete' }, petId: { to: 'petId', kind: 'id' } },
    },
    inventoryItems: { page: 'allInventoryItems', order: ['PRIMARY_KEY_ASC'], filter: {} },
    inventorySummary: { unsupported: 'inventorySummary: an aggregate PostGraphile does not offer' },
    node: GLOBAL_IDS,
    nodes: GLOBAL_IDS,
    me: { unsupported: 'me: who is calling' },
  },
  Pet: {
    id: { leaf: 'rowId' },
    nodeId: NODE_ID,
    name: { leaf: 'name' },
    categoryId: { leaf: 'categoryId' },
    status: { leaf: 'status', kind: 'enum' },
    category: { one: 'categoryByCategoryId' },
    inventory: { one: 'inventoryItemByPetId' },
    orders: { page: 'ordersByPetId', order: ['PRIMARY_KEY_DESC'] },
  },
  Category: {
    id: { leaf: 'rowId' },
    nodeId: NODE_ID,
    name: { leaf: 'name' },
    description: { leaf: 'description' },
    pets: { page: 'petsByCategoryId', order: ['PRIMARY_KEY_ASC'], filter: PET_FILTER },
  },
  Order: {
    id: { leaf: 'rowId' },
    nodeId: NODE_ID,
    petId: { leaf: 'petId' },
    quantity: { leaf: 'quantity' },
    shipDate: { leaf: 'shipDate', kind: 'timestamp' },
    complete: { leaf: 'complete' },
    pet: { one: 'petByPetId' },
  },
  InventoryItem: {
    nodeId: NODE_ID,
    petId: { leaf: 'petId' },
    quantity: { leaf: 'quantity' },
    // "Always the pet's current status": the pet's, which PostGraphile answers one level down.
    status: { via: 'petByPetId', leaf: 'status', kind: 'enum' },
    pet: { one: 'petByPetId' },
  },
};
/** Connection, edge and page-info types: the same fields in both schemas. */
const SAME_FIELDS: Record<string, FieldSpec> = {
  edges: { same: true },
  nodes: { same: true },
  node: { same: true },
  pageInfo: { same: true },
  totalCount: { same: true },
  hasNextPage: { same: true },
  hasPreviousPage: { same: true },
  cursor: { same: true, kind: 'opaque' },
  startCursor: { same: true, kind: 'opaque' },
  endCursor: { same: true, kind: 'opaque' },
};

/** The gateway's page size when neither `first` nor `last` is given (src/common/pagination.ts). */
const DEFAULT_PAGE = 20;

class Untranslatable extends Error {}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

/** Learns PostGraphile's schema from the running peer (introspection), to validate translations. */
export async function fetchPeerSchema(url: string): Promise<GraphQLSchema> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const body = (await res.json()) as { data?: IntrospectionQuery; errors?: unknown[] };
  if (!body.data) throw new Error(`T2 introspection failed: ${JSON.stringify(body.errors).slice(0, 300)}`);
  return buildClientSchema(body.data);
}

/**
 * `query` (+ `variables`), a read valid against the gateway's `schema`, in PostGraphile's `peer`
 * schema, or why it cannot be asked with the same meaning.
 */
export function translateToPeer(
  schema: GraphQLSchema,
  peer: GraphQLSchema,
  query: string,
  variables: Record<string, unknown>,
): Translation {
  try {
    return { ok: true, read: translate(schema, peer, query, variables) };
  } catch (error) {
    if (error instanceof Untranslatable) return { ok: false, reason: error.message };
    throw error;
  }
}

function translate(
  schema: GraphQLSchema,
  peer: GraphQLSchema,
  query: string,
  variables: Record<string, unknown>,
): PeerRead {
  const document = parse(query);
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length !== 1 || operations[0]!.operation !== 'query') throw new Untranslatable('not one query');
  const operation = operations[0]!;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );

  // Every variable's value as the gateway sees it: sent, or its default.
  const defs = new Map<string, VariableDefinitionNode>(
    operation.variableDefinitions?.map((v) => [v.variable.name.value, v]) ?? [],
  );
  const values: Record<string, unknown> = {};
  for (const [v, def] of defs) {
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType;
    values[v] = v in variables ? variables[v] : def.defaultValue ? valueFromAST(def.defaultValue, type) : undefined;
  }
  const kinds: Record<string, KeyKind> = {};
  const peerVariables: Record<string, unknown> = {};
  const used = new Set<string>();

  const keyKind = (key: string, kind: KeyKind | undefined) => {
    if (!kind) return;
    if (kinds[key] && kinds[key] !== kind) throw new Untranslatable('one response key for two kinds of value');
    kinds[key] = kind;
  };
  /** A gateway argument's value (variables resolved), coerced to its gateway type. */
  const argValue = (field: GraphQLObjectType, fieldName: string, node: FieldNode, arg: string): unknown => {
    const a = node.arguments?.find((x) => x.name.value === arg);
    if (!a) return undefined;
    const type = field.getFields()[fieldName]!.args.find((x) => x.name === arg)!.type;
    if (a.value.kind === Kind.VARIABLE) return values[a.value.name.value];
    return valueFromAST(a.value, type, values);
  };
  /** A scalar argument: the variable itself when the gateway had one (sent as `value`), else a literal. */
  const scalarArg = (node: FieldNode, arg: string, to: string, value: unknown, literal: ValueNode): ArgumentNode => {
    const a = node.arguments?.find((x) => x.name.value === arg);
    if (a?.value.kind === Kind.VARIABLE) {
      const v = a.value.name.value;
      used.add(v);
      peerVariables[v] = value;
      return { kind: Kind.ARGUMENT, name: name(to), value: a.value };
    }
    return { kind: Kind.ARGUMENT, name: name(to), value: literal };
  };
  const directives = (list: readonly DirectiveNode[] | undefined): DirectiveNode[] => {
    for (const d of list ?? []) {
      if (d.name.value !== 'skip' && d.name.value !== 'include') throw new Untranslatable(`directive @${d.name.value}`);
      const cond = d.arguments?.[0]?.value;
      if (cond?.kind === Kind.VARIABLE) {
        used.add(cond.name.value);
        peerVariables[cond.name.value] = values[cond.name.value];
      }
    }
    return [...(list ?? [])];
  };
  const str = (value: unknown): ValueNode => ({ kind: Kind.STRING, value: String(value) });
  const int = (value: number): ValueNode => ({ kind: Kind.INT, value: String(value) });

  function pageArguments(parent: GraphQLObjectType, node: FieldNode, spec: PageSpec): ArgumentNode[] {
    const field = node.name.value;
    const arg = (a: string) => argValue(parent, field, node, a);
    for (const cursor of ['after', 'before']) {
      if (arg(cursor) != null) throw new Untranslatable('a cursor argument: cursors are each server’s own');
    }
    const out: ArgumentNode[] = [];
    const first = arg('first') as number | null | undefined;
    const last = arg('last') as number | null | undefined;
    if (first != null) out.push(scalarArg(node, 'first', 'first', first, int(first)));
    if (last != null) out.push(scalarArg(node, 'last', 'last', last, int(last)));
    if (first == null && last == null) out.push({ kind: Kind.ARGUMENT, name: name('first'), value: int(DEFAULT_PAGE) });
    let order = spec.order;
    if (order === 'petOrder') {
      const o = arg('orderBy') as { field?: string; direction?: string } | null | undefined;
      const direction = o?.direction ?? 'ASC';
      order = o?.field === 'NAME' ? [`NAME_${direction}`, `PRIMARY_KEY_${direction}`] : [`PRIMARY_KEY_${direction}`];
    }
    out.push({
      kind: Kind.ARGUMENT,
      name: name('orderBy'),
      value: { kind: Kind.LIST, values: order.map((o) => ({ kind: Kind.ENUM, value: o })) },
    });
    const filter = arg('filter') as Record<string, unknown> | null | undefined;
    const condition: { name: string; value: ValueNode }[] = [];
    for (const [key, value] of Object.entries(filter ?? {})) {
      if (value == null) continue; // nullish: no condition in the gateway either
      const to = spec.filter?.[key];
      if (!to)
        throw new Untranslatable(
          `filter ${parent
            .getFields()
            [field]!.args.find((a) => a.name === 'filter')!
            .type.toString()}.${key}: no equal condition in PostGraphile`,
        );
      condition.push({
        name: to.to,
        value:
          to.kind === 'enum'
            ? { kind: Kind.ENUM, value: String(value).toLowerCase() }
            : to.kind === 'id'
              ? str(value)
              : { kind: Kind.BOOLEAN, value: Boolean(value) },
      });
    }
    if (condition.length) {
      out.push({
        kind: Kind.ARGUMENT,
        name: name('condition'),
        value: {
          kind: Kind.OBJECT,
          fields: condition.map((c) => ({ kind: Kind.OBJECT_FIELD, name: name(c.name), value: c.value })),
        },
      });
    }
    return out;
  }

  function selectionSet(type: GraphQLObjectType, set: SelectionSetNode): SelectionSetNode {
    const selections: SelectionNode[] = [];
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) {
        if (s.typeCondition && s.typeCondition.name.value !== type.name)
          throw new Untranslatable('a fragment on another type');
        selections.push({
          kind: Kind.INLINE_FRAGMENT,
          directives: directives(s.directives),
          selectionSet: selectionSet(type, s.selectionSet),
        });
      } else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value)!;
        if (f.typeCondition.name.value !== type.name) throw new Untranslatable('a fragment on another type');
        selections.push({
          kind: Kind.INLINE_FRAGMENT,
          directives: directives(s.directives),
          selectionSet: selectionSet(type, f.selectionSet),
        });
      } else {
        selections.push(field(type, s));
      }
    }
    return { kind: Kind.SELECTION_SET, selections };
  }

  function field(parent: GraphQLObjectType, node: FieldNode): FieldNode {
    const fieldName = node.name.value;
    const key = node.alias?.value ?? fieldName;
    if (fieldName === '__typename') return { ...node, directives: directives(node.directives) };
    const spec: FieldSpec | undefined = FIELDS[parent.name]?.[fieldName] ?? SAME_FIELDS[fieldName];
    if (!spec) throw new Untranslatable(`${parent.name}.${fieldName}: not in the translation table`);
    if ('unsupported' in spec) throw new Untranslatable(spec.unsupported);
    const gwType = getNamedType(parent.getFields()[fieldName]!.type);
    const inner = (): SelectionSetNode | undefined =>
      node.selectionSet ? selectionSet(gwType as GraphQLObjectType, node.selectionSet) : undefined;
    const make = (to: string, args: ArgumentNode[] = []): FieldNode => ({
      kind: Kind.FIELD,
      // Always the gateway's response key: both answers have the same keys.
      alias: to === key ? undefined : name(key),
      name: name(to),
      arguments: args,
      directives: directives(node.directives),
      selectionSet: inner(),
    });
    if ('same' in spec) {
      keyKind(key, spec.kind);
      return make(fieldName);
    }
    if ('via' in spec) {
      keyKind(key, spec.kind);
      return {
        ...make(spec.via),
        selectionSet: { kind: Kind.SELECTION_SET, selections: [{ kind: Kind.FIELD, name: name(spec.leaf) }] },
      };
    }
    if ('leaf' in spec) {
      if (!isLeafType(gwType)) throw new Error(`${parent.name}.${fieldName}: not a leaf`);
      keyKind(key, spec.kind);
      return make(spec.leaf);
    }
    if ('one' in spec) {
      const args = Object.entries(spec.args ?? {}).map(([from, to]) => {
        const value = argValue(parent, fieldName, node, from);
        return scalarArg(node, from, to, String(value), str(value));
      });
      return make(spec.one, args);
    }
    return make(spec.page, pageArguments(parent, node, spec));
  }

  const root = schema.getQueryType()!;
  const translated: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: operation.operation,
        name: operation.name,
        variableDefinitions: [],
        directives: [],
        selectionSet: selectionSet(root, operation.selectionSet),
      },
    ],
  };
  // The variables kept, each declared with the type of its one place in the peer's schema.
  const types = new Map<string, string>();
  const typeInfo = new TypeInfo(peer);
  visit(
    translated,
    visitWithTypeInfo(typeInfo, {
      Variable(node) {
        const type = typeInfo.getInputType();
        if (type) types.set(node.name.value, String(type));
      },
    }),
  );
  const variableDefinitions: VariableDefinitionNode[] = [...used].map((v) => {
    const type = types.get(v);
    if (!type) throw new Untranslatable(`translator: no peer type for $${v}`);
    return {
      kind: Kind.VARIABLE_DEFINITION,
      variable: { kind: Kind.VARIABLE, name: name(v) },
      type: parseType(type),
    };
  });
  const final: DocumentNode = {
    ...translated,
    definitions: [{ ...(translated.definitions[0] as OperationDefinitionNode), variableDefinitions }],
  };
  const errors = validate(peer, final, specifiedRules);
  if (errors.length) throw new Untranslatable(`translator: invalid in PostGraphile's schema (${errors[0]!.message})`);
  return { query: print(final), variables: peerVariables, kinds };
}

/** A type reference (`BigInt!`, `[Int]`) as an AST. */
function parseType(text: string) {
  const doc = parse(`query ($x: ${text}) { __typename }`);
  return (doc.definitions[0] as OperationDefinitionNode).variableDefinitions![0]!.type;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/**
 * An answer as compared: object keys sorted, rows in their order, cursors as a placeholder (present
 * or null), enum values upper-cased, timestamps as ISO instants. Applied to both answers.
 */
export function canonicalAnswer(body: string, kinds: Record<string, KeyKind>): string {
  const walk = (value: unknown, kind?: KeyKind): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, kind));
    // A leaf PostGraphile answers one level down (InventoryItem.status: `{ "status": ... }`).
    if (kind && value && typeof value === 'object') {
      const inner = Object.values(value);
      if (inner.length === 1) return walk(inner[0], kind);
    }
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(value).sort()) out[k] = walk((value as Record<string, unknown>)[k], kinds[k]);
      return out;
    }
    if (typeof value !== 'string' || !kind) return value;
    if (kind === 'opaque') return '<opaque>';
    if (kind === 'enum') return value.toUpperCase();
    return TIMESTAMP.test(value) ? new Date(value).toISOString() : value;
  };
  return JSON.stringify(walk(JSON.parse(body)));
}
