/**
 * DataLoader helpers. Loaders are built per request (src/graphql/context.ts), so their caches never
 * outlive a request or leak one caller's data to another.
 */
import DataLoader from 'dataloader';

/** A loader of rows by a bigint key: one `fetch` per batch, results put back in key order. */
export function keyedLoader<T>(
  fetch: (keys: readonly bigint[]) => Promise<T[]>,
  keyOf: (row: T) => bigint,
): DataLoader<bigint, T | null, string> {
  return new DataLoader<bigint, T | null, string>(
    async (keys) => {
      const rows = await fetch(keys);
      const byKey = new Map(rows.map((row) => [keyOf(row).toString(), row]));
      return keys.map((key) => byKey.get(key.toString()) ?? null);
    },
    { cacheKeyFn: (key) => key.toString(), maxBatchSize: 1000 },
  );
}

/**
 * A loader whose keys carry a parent id plus arguments that are the same for a whole GraphQL field
 * (filter, first, after): keys are grouped by those arguments, and each group is one batch. A group
 * whose fetch fails fails its own keys only (DataLoader rejects each key given an Error).
 */
export function groupedLoader<A, V>(
  fetchGroup: (parentIds: bigint[], args: A) => Promise<Map<string, V>>,
  fallback: (args: A) => V,
): DataLoader<{ parentId: bigint; args: A }, V, string> {
  const argsKey = (args: A) => JSON.stringify(args, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return new DataLoader<{ parentId: bigint; args: A }, V, string>(
    async (keys) => {
      const groups = new Map<string, { args: A; parentIds: bigint[] }>();
      for (const key of keys) {
        const k = argsKey(key.args);
        const group = groups.get(k) ?? { args: key.args, parentIds: [] };
        group.parentIds.push(key.parentId);
        groups.set(k, group);
      }
      // Each group is its own query: one that fails (a page of 101 under one alias) fails only its
      // own keys, so the error lands on the field that asked for it, never on a sibling alias.
      const results = new Map<string, Map<string, V> | Error>();
      await Promise.all(
        [...groups].map(async ([k, group]) => {
          try {
            results.set(k, await fetchGroup(group.parentIds, group.args));
          } catch (error) {
            results.set(k, error instanceof Error ? error : new Error(String(error)));
          }
        }),
      );
      return keys.map((key) => {
        const result = results.get(argsKey(key.args))!;
        return result instanceof Error ? result : (result.get(key.parentId.toString()) ?? fallback(key.args));
      });
    },
    { cacheKeyFn: (key) => `${key.parentId}:${argsKey(key.args)}`, maxBatchSize: 1000 },
  );
}
