/**
 * Apollo's automatic persisted queries (APQ), kept where the cost budget can read them. Apollo keeps
 * the text registered for each hash in a cache of its own, and finds it only as it starts running the
 * operation; a batch is charged as a whole before any of its operations runs (policy/cost-budget.ts),
 * so a hash in a batch, whose text only that cache knew, was charged on its own as it ran, after the
 * others had started: a batch over the budget ran in part (its mutation done, a hash refused, 200).
 * The cache is the same as Apollo's own default (an LRU of 30 MiB counted in characters, no expiry),
 * handed to Apollo as `persistedQueries.cache`.
 */
import type { ApolloServerOptions } from '@apollo/server';
import { LRUCache } from 'lru-cache';

/** What Apollo is given as `persistedQueries.cache` (its `KeyValueCache<string>`). */
type ApqCache = NonNullable<Exclude<ApolloServerOptions<object>['persistedQueries'], false | undefined>['cache']>;

/** Apollo writes each hash under this prefix into the cache it is given (requestPipeline's APQ_CACHE_PREFIX). */
const APQ_PREFIX = 'apq:';

/** The bound of the texts kept, in characters, as Apollo's default cache counts them. */
const APQ_CACHE_CHARACTERS = 30 * 1024 * 1024;

export interface PersistedQueries {
  /** Apollo's `persistedQueries.cache`. */
  cache: ApqCache;
  /** The text registered for `hash` (a sha256, hex), if this process holds it. */
  text(hash: string): string | undefined;
}

export function createPersistedQueries(maxCharacters = APQ_CACHE_CHARACTERS): PersistedQueries {
  const texts = new LRUCache<string, string>({
    maxSize: maxCharacters,
    sizeCalculation: (text, key) => Math.max(1, text.length + key.length),
  });
  return {
    cache: {
      get: async (key) => texts.get(key),
      set: async (key, value, options) => {
        texts.set(key, value, options?.ttl ? { ttl: options.ttl * 1000 } : undefined);
      },
      delete: async (key) => texts.delete(key),
    },
    text: (hash) => texts.get(APQ_PREFIX + hash),
  };
}
