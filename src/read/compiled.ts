/**
 * How field resolvers read what the read compiler (compiler.ts) put on their parent: synchronously,
 * without a promise or a DataLoader load. Each compiled relation is stored on its parent row under
 * the field's AST node, the one the resolver finds as `info.fieldNodes[0]`.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNamedType,
  isObjectType,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';

/** The compiled relations of a row, by field node (a symbol: no resolver or serialiser sees it). */
export const COMPILED = Symbol('compiled relations');

/** A compiled field whose arguments were refused: its resolver throws the error. */
export class CompiledError {
  constructor(readonly error: unknown) {}
}

/**
 * The value the statement read for this field of `parent`. Every object a resolver sees was read by
 * the compiler (a root field, an entity by key, or the relations of a mutation's or an event's
 * object: `compileObjectSources`), so a relation without its compiled value is a fault of the server.
 */
export function compiledField(
  parent: object,
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'parentType' | 'fieldName'>,
): unknown {
  const compiled = (parent as { [COMPILED]?: Map<FieldNode, unknown> })[COMPILED];
  const node = info.fieldNodes[0]!;
  if (!compiled?.has(node)) {
    throw new Error(`${info.parentType.name}.${info.fieldName} was not read by the read compiler`);
  }
  const value = compiled.get(node);
  if (value instanceof CompiledError) throw value.error;
  return value;
}

/**
 * Gives each relation field that the compiler serves (relations.ts) a resolver that answers the
 * compiled value itself. TypeGraphQL runs every field resolver through its handler (middlewares,
 * argument conversion), per node: for a page of 50 pets with category and inventory that is 100
 * calls that only read what the statement returned. Fields guarded by the scope table (`Pet.orders`)
 * keep their whole handler, whose `@Authorized` check stays in front of them.
 */
export function serveCompiledFields(
  schema: GraphQLSchema,
  compiled: Record<string, Record<string, unknown>>,
  guarded: ReadonlySet<string>,
): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      // Query and Me have no row of their own: their relations are read by their own resolvers
      // (readTopLevel), never found on a parent.
      if (
        typeName === 'Query' ||
        typeName === 'Me' ||
        !compiled[typeName]?.[fieldName] ||
        guarded.has(`${typeName}.${fieldName}`)
      )
        return field;
      if (!field.resolve) return field;
      return { ...field, resolve: (parent, _args, _context, info) => compiledField(parent as object, info) };
    },
  });
}

/** What `compileObjectSources` needs of the context: the request's reads (reads.ts). */
interface WithReads {
  reads: { relationsOf(info: GraphQLResolveInfo, type: never, row: Record<string, unknown>): Promise<unknown> };
}

/**
 * The fields whose objects no compiled statement read: those of `Mutation` and `Subscription`
 * returning an object of the relation table (a write's result, an event's object), and, below them,
 * those of the wrapper types they return (`OrderEvent.order`), as "Type.field" -> object type.
 */
function objectSources(schema: GraphQLSchema, objects: Record<string, unknown>): Map<string, string> {
  const sources = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (type: GraphQLObjectType | null | undefined) => {
    if (!type || seen.has(type.name)) return;
    seen.add(type.name);
    for (const field of Object.values(type.getFields())) {
      const target = getNamedType(field.type);
      if (!isObjectType(target)) continue;
      if (Object.hasOwn(objects, target.name)) sources.set(`${type.name}.${field.name}`, target.name);
      else visit(target);
    }
  };
  visit(schema.getMutationType());
  visit(schema.getSubscriptionType());
  return sources;
}

/**
 * Gives every object source (`objectSources`) a resolver that hands what it returned (a row, a list
 * of rows, or null) to the read compiler, which reads the relations selected below it in one
 * statement (reads.ts, `relationsOf`): `placeOrder { pet { category orders { totalCount } } }` costs
 * its write and one statement, an order event with its pet's relations one statement.
 */
export function compileObjectSources(schema: GraphQLSchema, objects: Record<string, unknown>): GraphQLSchema {
  const sources = objectSources(schema, objects);
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const target = sources.get(`${typeName}.${fieldName}`);
      if (!target) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      const withRelations = (row: unknown, context: WithReads, info: GraphQLResolveInfo) =>
        row == null ? row : context.reads.relationsOf(info, target as never, row as Record<string, unknown>);
      return {
        ...field,
        resolve: async (parent, args, context: WithReads, info) => {
          const value: unknown = await resolve(parent, args, context, info);
          return Array.isArray(value)
            ? Promise.all(value.map((row) => withRelations(row, context, info)))
            : withRelations(value, context, info);
        },
      };
    },
  });
}
