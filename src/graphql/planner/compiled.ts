/**
 * How field resolvers read what the read compiler (compiler.ts) put on their parent: synchronously,
 * without a promise or a DataLoader load. Each compiled relation is stored on its parent row under
 * the field's AST node, the one the resolver finds as `info.fieldNodes[0]`.
 */
import type { FieldNode, GraphQLResolveInfo } from 'graphql';

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
