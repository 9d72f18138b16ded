/**
 * The petstore as an Apollo Federation v2 subgraph (GRAPHQL_FEDERATION=true, docs/federation.md):
 * `Query._service { sdl }` and `Query._entities(representations:)` added to the schema TypeGraphQL
 * builds, following the subgraph specification.
 *
 * Why by hand rather than `@apollo/subgraph`'s buildSubgraphSchema: that function rebuilds the
 * schema from SDL and re-attaches resolvers from a resolver map. Ours are TypeGraphQL's (with its
 * auth-checker middleware, the int64 `ID` scalar that keeps the built-in's name, the stability labels
 * and the connection counts written onto the field configs), and every later stage (graphql-jit in
 * jit-gateway.ts, the cost limits, the scope walk of operation-access.ts, error masking) works on
 * that very graphql-js schema. Adding two fields and three types to it keeps all of them as they
 * are: the federated schema is the plain one plus `_entities`/`_service`, the same type objects and
 * resolvers. The spec's part is small: the `_Any` scalar, the `_Entity` union, `_Service`, and the
 * SDL with `@link`/`@key`.
 */
import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  Kind,
  parse,
  print,
  valueFromASTUntyped,
  type ConstDirectiveNode,
  type DefinitionNode,
  type GraphQLFieldConfig,
  type GraphQLResolveInfo,
} from 'graphql';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { ValidationError } from '../errors/app-error';
import { parseId } from '../common/ids';
import type { GraphQLContext } from '../modules/context';
import { isObjectTypeName } from '../common/object-types';
import { ENTITY_KEYS, readEntities, type EntityType } from '../read/entities';

/** The federation spec version the SDL links to (v2.3: `@key` with `resolvable`, `@interfaceObject`). */
export const FEDERATION_SPEC_URL = 'https://specs.apollo.dev/federation/v2.3';

const ENTITY_TYPES = Object.keys(ENTITY_KEYS) as EntityType[];

export const isEntityType = (name: unknown): name is EntityType => isObjectTypeName(name);

/** A representation after `_Any` parsed it: which type, and its key as the services take it. */
export interface Representation {
  typeName: EntityType;
  key: bigint;
}

/**
 * Checks one representation (`{ __typename, <key field> }`, as a router sends it). Throws a
 * ValidationError: from `_Any`'s parsing, graphql-js turns it into the variable's (or literal's)
 * coercion error, answered 400 VALIDATION_FAILED like any malformed id, before anything runs.
 */
export function parseRepresentation(value: unknown): Representation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('representation: must be an object with __typename and its key fields');
  }
  const record = value as Record<string, unknown>;
  const typeName = record.__typename;
  if (!isEntityType(typeName)) {
    throw new ValidationError(
      `representation: __typename must name an entity type of this subgraph (${ENTITY_TYPES.join(', ')}), got ${JSON.stringify(typeName ?? null)}`,
    );
  }
  const keyField = ENTITY_KEYS[typeName];
  if (record[keyField] === undefined) {
    // Most often a subgraph that declares the entity with another key: say which one this one has.
    const fields = Object.keys(record)
      .slice(0, 5)
      .map((f) => f.slice(0, 40));
    throw new ValidationError(
      `representation of ${typeName}: its key field ${keyField} is missing (@key(fields: "${keyField}")), got the fields ${fields.join(', ')}`,
    );
  }
  return { typeName, key: parseId(record[keyField], `representation of ${typeName}: ${keyField}`) };
}

/** The spec's `_Any`: here it accepts only representations of this subgraph's entities. */
const AnyScalar = new GraphQLScalarType<Representation, unknown>({
  name: '_Any',
  description: 'An entity representation: `__typename` and the fields of its `@key`.',
  parseValue: parseRepresentation,
  parseLiteral: (ast, variables) => parseRepresentation(valueFromASTUntyped(ast, variables)),
  serialize: (value) => value,
});

/**
 * Which entity type a returned object is: readEntities answers service rows, which carry no
 * `__typename`. Rows are fresh objects per request, so a weak map forgets them with the request.
 */
const entityTypeOf = new WeakMap<object, EntityType>();

function entityUnion(schema: GraphQLSchema): GraphQLUnionType {
  return new GraphQLUnionType({
    name: '_Entity',
    types: ENTITY_TYPES.map((name) => schema.getType(name) as GraphQLObjectType),
    resolveType: (value: object) => entityTypeOf.get(value),
  });
}

const ServiceType = new GraphQLObjectType<{ sdl: string }>({
  name: '_Service',
  fields: { sdl: { type: new GraphQLNonNull(GraphQLString) } },
});

/**
 * Resolves representations in their order: those of one type together, through ONE readEntities
 * call (one SQL statement whatever their number, src/read/entities.ts); null where no such object
 * exists. Scopes and cost were checked for the whole operation before this runs.
 */
async function resolveEntities(
  ctx: GraphQLContext,
  representations: readonly Representation[],
  info: GraphQLResolveInfo,
): Promise<Array<object | null>> {
  const byType = new Map<EntityType, number[]>();
  representations.forEach((r, i) => {
    const positions = byType.get(r.typeName) ?? [];
    positions.push(i);
    byType.set(r.typeName, positions);
  });
  const results: Array<object | null> = new Array<object | null>(representations.length).fill(null);
  await Promise.all(
    [...byType].map(async ([typeName, positions]) => {
      const found = await readEntities(
        ctx,
        info,
        typeName,
        positions.map((i) => representations[i]!.key),
      );
      found.forEach((entity, j) => {
        if (!entity) return;
        entityTypeOf.set(entity, typeName);
        results[positions[j]!] = entity;
      });
    }),
  );
  return results;
}

/**
 * The subgraph SDL that `_service { sdl }` answers and composition reads: the printed schema (the
 * same print as schema.graphql, directive uses included) with `@key` on the entity types and the
 * `@link` to federation v2. Without `_service`/`_entities`: composition adds those itself.
 */
export function subgraphSdl(schema: GraphQLSchema): string {
  const document = parse(printSchemaWithDirectives(schema));
  const keyed = (name: string): ConstDirectiveNode[] => {
    if (!isEntityType(name)) return [];
    return [
      {
        kind: Kind.DIRECTIVE,
        name: { kind: Kind.NAME, value: 'key' },
        arguments: [
          {
            kind: Kind.ARGUMENT,
            name: { kind: Kind.NAME, value: 'fields' },
            value: { kind: Kind.STRING, value: ENTITY_KEYS[name] },
          },
        ],
      },
    ];
  };
  const definitions: DefinitionNode[] = document.definitions.map((d) =>
    d.kind === Kind.OBJECT_TYPE_DEFINITION && isEntityType(d.name.value)
      ? { ...d, directives: [...(d.directives ?? []), ...keyed(d.name.value)] }
      : d,
  );
  const link = `extend schema @link(url: "${FEDERATION_SPEC_URL}", import: ["@key"])`;
  return `${link}\n\n${print({ ...document, definitions })}\n`;
}

/**
 * The schema with the subgraph's fields: the same type objects (and resolvers) as `schema`, and a
 * Query type that adds `_entities` and `_service`.
 */
export function federateSchema(schema: GraphQLSchema): GraphQLSchema {
  const query = schema.getQueryType();
  if (!query) throw new Error('a subgraph needs a Query type');
  for (const name of ENTITY_TYPES) {
    if (!(schema.getType(name) instanceof GraphQLObjectType)) throw new Error(`entity type ${name} is missing`);
  }
  const sdl = subgraphSdl(schema);
  const entities: GraphQLFieldConfig<unknown, GraphQLContext, { representations: Representation[] }> = {
    type: new GraphQLNonNull(new GraphQLList(entityUnion(schema))),
    description: 'Entities by representation, for a federation router. Stability: stable.',
    args: {
      representations: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AnyScalar))) },
    },
    resolve: (_root, args, ctx, info) => resolveEntities(ctx, args.representations, info),
  };
  const service: GraphQLFieldConfig<unknown, GraphQLContext> = {
    type: new GraphQLNonNull(ServiceType),
    description: "This subgraph's SDL, for composition. Stability: stable.",
    resolve: () => ({ sdl }),
  };
  const queryConfig = query.toConfig();
  const federatedQuery = new GraphQLObjectType({
    ...queryConfig,
    fields: { ...queryConfig.fields, _entities: entities, _service: service },
  });
  const config = schema.toConfig();
  return new GraphQLSchema({
    ...config,
    query: federatedQuery,
    types: config.types.map((t) => (t === query ? federatedQuery : t)),
  });
}

/**
 * The `__typename`s a literal or variable `representations` argument names (for the scope check). A
 * single object stands for a list of one, as GraphQL's input coercion makes it (issue 28, item 8).
 */
export function representationTypeNames(value: unknown): EntityType[] {
  const names = new Set<EntityType>();
  for (const item of Array.isArray(value) ? value : [value]) {
    const typeName = (item as { __typename?: unknown } | null)?.__typename;
    if (isEntityType(typeName)) names.add(typeName);
  }
  return [...names];
}
