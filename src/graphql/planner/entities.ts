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
 * - Row visibility (the relation table's access hooks: a customer's own orders) applies here as on
 *   every read: an object the caller may not see is null, as an absent one.
 * - Access rules (the scope table) and cost limits are NOT checked here: the operation was already
 *   checked as a whole before execution (src/graphql/operation-access.ts, limits.ts); callers that
 *   resolve an abstract field check the scope of `typeName` themselves before calling.
 *
 * The read compiler serves it (compiler.ts, `readByKeys`): every scalar column of the type, and every
 * relation selected below compiled into the same statement. With GRAPHQL_READ_PLANNER=false it reads
 * through the request's DataLoaders instead (one batched statement per type; relations below load as
 * they always have).
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { GraphQLContext } from '../context';
import { readByKeys } from './compiler';

export type EntityType = 'Pet' | 'Category' | 'Order' | 'InventoryItem';

/** The key column of each entity type: `InventoryItem` is keyed by its pet, the others by `id`. */
export const ENTITY_KEYS: Record<EntityType, 'id' | 'petId'> = {
  Pet: 'id',
  Category: 'id',
  Order: 'id',
  InventoryItem: 'petId',
};

export async function readEntities(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  typeName: EntityType,
  keys: readonly bigint[],
): Promise<Array<object | null>> {
  if (ctx.planReads) {
    if (keys.length === 0) return [];
    const rows = await readByKeys(ctx.services, info, typeName, info.fieldNodes, keys, ctx.caller);
    const key = ENTITY_KEYS[typeName];
    const byKey = new Map(rows.map((row) => [String(row[key]), row]));
    return keys.map((k) => byKey.get(k.toString()) ?? null);
  }
  const nullIfError = <T>(value: T | Error): T | null => (value instanceof Error ? null : value);
  switch (typeName) {
    case 'Pet':
      return (await ctx.loaders.petById.loadMany(keys)).map(nullIfError);
    case 'Category':
      return (await ctx.loaders.categoryById.loadMany(keys)).map(nullIfError);
    case 'InventoryItem': {
      const [entries, pets] = await Promise.all([
        ctx.loaders.inventoryByPetId.loadMany(keys),
        ctx.loaders.petById.loadMany(keys),
      ]);
      return entries.map((entry, i) => {
        const e = nullIfError(entry);
        const pet = nullIfError(pets[i]);
        return e && pet ? { petId: e.petId, quantity: e.quantity, status: pet.status } : null;
      });
    }
    case 'Order':
      return (await ctx.loaders.orderById.loadMany(keys)).map(nullIfError);
  }
}
