/**
 * What a resolver's selection asks for below it, read from its resolve info before anything is
 * fetched. Works with graphql-js and graphql-jit alike: both pass `fieldNodes`, `fragments`, `schema`
 * and `variableValues` (jit-gateway.ts hands graphql-jit variables already coerced by graphql-js, and
 * literal arguments hoisted into variables, so arguments read here are the ones the field's own
 * resolver will get).
 *
 * `@skip`/`@include` are not evaluated: a field under them counts as selected. The planner may then
 * read a relation nobody outputs (a cheap join), never miss one it needs.
 */
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

export type Fields = Map<string, FieldNode[]>;

/** The fields selected under `nodes`, by field name (aliases merged), through fragments. */
export function subfields(info: Pick<GraphQLResolveInfo, 'fragments'>, nodes: readonly FieldNode[]): Fields {
  const out: Fields = new Map();
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    if (!set) return;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const list = out.get(s.name.value);
        if (list) list.push(s);
        else out.set(s.name.value, [s]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        visit(s.selectionSet, seen);
      } else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        visit(info.fragments[s.name.value]?.selectionSet, seen);
      }
    }
  };
  for (const node of nodes) visit(node.selectionSet, new Set());
  return out;
}

/** The fields selected on a connection's nodes, whether through `nodes` or `edges { node }`. */
export function connectionNodeFields(
  info: Pick<GraphQLResolveInfo, 'fragments'>,
  connection: readonly FieldNode[],
): Fields {
  const top = subfields(info, connection);
  const viaEdges = subfields(info, subfields(info, top.get('edges') ?? []).get('node') ?? []);
  const direct = subfields(info, top.get('nodes') ?? []);
  for (const [name, list] of viaEdges) direct.set(name, [...(direct.get(name) ?? []), ...list]);
  return direct;
}
