/**
 * How field resolvers read what the read compiler (compiler.ts) put on their parent: synchronously,
 * without a promise or a DataLoader load. Each compiled relation is stored on its parent row under
 * the field's AST node, the one the resolver finds as `info.fieldNodes[0]`.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { FieldNode, GraphQLResolveInfo, GraphQLSchema } from 'graphql';

/** The compiled relations of a row, by field node (a symbol: no resolver or serialiser sees it). */
export const COMPILED = Symbol('compiled relations');

/** A compiled field whose arguments were refused: its resolver throws the error. */
export class CompiledError {
  constructor(readonly error: unknown) {}
}

/** Returned by `compiledField` when the parent holds no compiled value for the field. */
export const NOT_COMPILED: unique symbol = Symbol('not compiled');

/**
 * The value the statement read for this field of `parent`, or NOT_COMPILED (the resolver then loads
 * it as it always did: the parent came from a mutation, a subscription, or the planner is off).
 */
export function compiledField(parent: object, info: Pick<GraphQLResolveInfo, 'fieldNodes'>): unknown {
  const compiled = (parent as { [COMPILED]?: Map<FieldNode, unknown> })[COMPILED];
  const node = info.fieldNodes[0]!;
  if (!compiled?.has(node)) return NOT_COMPILED;
  const value = compiled.get(node);
  if (value instanceof CompiledError) throw value.error;
  return value;
}

/**
 * Gives each relation field that the compiler serves (relations.ts) a resolver that answers the
 * compiled value itself and calls the field's own resolver only when there is none. TypeGraphQL runs
 * every field resolver through its handler (middlewares, argument conversion), per node: for a page
 * of 50 pets with category and inventory that is 100 calls that only read what the statement
 * returned. Fields guarded by the scope table (`Pet.orders`) keep their whole handler, whose
 * `@Authorized` check stays in front of them.
 */
export function serveCompiledFields(
  schema: GraphQLSchema,
  compiled: Record<string, Record<string, unknown>>,
  guarded: ReadonlySet<string>,
): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      if (typeName === 'Query' || !compiled[typeName]?.[fieldName] || guarded.has(`${typeName}.${fieldName}`))
        return field;
      const resolve = field.resolve;
      if (!resolve) return field;
      return {
        ...field,
        resolve: (parent, args, context, info) => {
          const value = compiledField(parent as object, info);
          return value === NOT_COMPILED ? resolve(parent, args, context, info) : value;
        },
      };
    },
  });
}
