/**
 * Objects of one type read by key, for the fields that select "any object of type T by its key":
 * federation's `_entities(representations)` and Relay's `nodes(nodeIds)`/`node(nodeId)`.
 *
 * THE CONTRACT (shared by the read compiler, federation and Relay's Node; keep it stable):
 * - `readEntities(ctx, info, typeName, keys)` answers, in the order of `keys`, the object of
 *   `typeName` with that key or null (absent, or not visible to the caller), as the type's GraphQL
 *   object source: what its field resolvers expect as `@Root()` (the row shape its service returns).
 * - `info` is the resolve info of the field that asked (`_entities`, `nodes`, `node`); the selection
 *   that applies to `typeName` is found under `info.fieldNodes` (inline fragments and fragment
 *   spreads on `typeName` or on an interface it implements, `__typename` included).
 * - One call costs ONE SQL statement whatever the number of keys, and once the read compiler serves
 *   it, the relations selected below (at any depth) are read in that same statement: the field
 *   resolvers below find them on the returned objects without a further statement.
 * - Access rules (the scope table) and cost limits are NOT checked here: the operation was already
 *   checked as a whole before execution (src/policy/operation-access.ts, limits.ts); callers that
 *   resolve an abstract field check the scope of `typeName` themselves before calling.
 *
 * The read compiler serves it (compiler.ts, `readByKeys`, batched per tick by reads.ts): every scalar
 * column of the type, and every relation selected below compiled into the same statement.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { OBJECT_TYPE_NAMES, OBJECT_TYPES, type ObjectTypeName } from '../common/object-types';
import type { GraphQLContext } from '../modules/context';

/** Every type of the registry (src/common/object-types.ts) is an entity, keyed by its registry key. */
export type EntityType = ObjectTypeName;

/** The key field of each entity type (`InventoryItem` is keyed by its pet, the others by `id`). */
export const ENTITY_KEYS = Object.fromEntries(OBJECT_TYPE_NAMES.map((type) => [type, OBJECT_TYPES[type].key])) as {
  [T in EntityType]: (typeof OBJECT_TYPES)[T]['key'];
};

/**
 * The scope-table entry whose rule an entity of each type obeys: `_entities` for an `Order`
 * representation, or `node` for an Order's node id, is refused exactly as `order(id)` is.
 */
export const ENTITY_ACCESS = Object.fromEntries(
  OBJECT_TYPE_NAMES.map((type) => [type, OBJECT_TYPES[type].access.operation]),
) as { [T in EntityType]: (typeof OBJECT_TYPES)[T]['access']['operation'] };

export function readEntities(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  typeName: EntityType,
  keys: readonly bigint[],
): Promise<Array<object | null>> {
  return ctx.reads.byKeys(info, typeName, keys);
}
