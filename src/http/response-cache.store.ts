/**
 * Where the response cache keeps answers (docs/caching.md): in this process (an LRU bounded in
 * bytes, lru-cache) or in Redis (REDIS_URL, shared by every process), and how it is never stale
 * after a write through the gateway.
 *
 * Invalidation is a generation: every entry records the generation that was current when its
 * request looked it up (before the answer was computed), and is served only while that is still
 * the current one. Every mutation moves the generation on after it has run and before it answers.
 * An answer computed from data older than a write therefore carries a generation older than that
 * write's: its reader looked the generation up before the write moved it, and read the database
 * after. (A global generation, not one per entity: a write drops every entry, which is always right;
 * writes are rare next to catalogue reads.)
 *
 * - memory: the generation is a number in the process; a mutation here moves it at once, a mutation
 *   in another process (or a store event, or a write outside the gateway that fires one) reaches it
 *   over PostgreSQL LISTEN. While LISTEN is down the cache is bypassed, and when it is back every
 *   entry is dropped: what was missed cannot have been kept.
 * - redis: the generation is a Redis key read in the same round trip as the entry (MGET), so a
 *   write through any process is seen by the next lookup in every process. Redis away: bypassed
 *   (lookups fail fast). A process whose connection came back moves the generation on before it
 *   serves again (its own writes, or a Redis restored from an older snapshot, may have been missed).
 *   The generation is a random token, not a counter, and no generation at all means "bypass": a
 *   Redis at its `maxmemory` with `noeviction` refuses the SET that moves it on, but never the DEL
 *   that then removes it, and a counter evicted (an `allkeys-*` policy) and counted again from 1
 *   would bring back entries stored under that number long ago. The token is a random integer,
 *   so that `INCR` still moves it on: what a release before the token did on every write (during a
 *   rolling deploy both run on one Redis), and what docs/caching.md gives operators to drop
 *   everything.
 */
import crypto from 'node:crypto';
import v8 from 'node:v8';
import Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { ResponseCacheStats } from '../common/response-cache-stats';
import { redisHeartbeat } from './redis-heartbeat';
import { ConfigError } from '../config';
export type { ResponseCacheStats };

/** An answer as stored: what a hit sends back, and the generation it was computed in. */
export interface CachedAnswer {
  gen: string;
  /** Unix ms when it was stored: the `Age` header of a hit. */
  storedAt: number;
  etag: string;
  contentType: string;
  cacheControl: string;
  body: string;
}

/** What a lookup found: the current generation, and the entry when one is current. */
export interface Lookup {
  gen: string;
  answer: CachedAnswer | undefined;
}

export interface ResponseCacheStore {
  readonly kind: 'memory' | 'redis';
  /** Null when the store cannot answer now: the request bypasses the cache. */
  lookup(key: string): Promise<Lookup | null>;
  save(key: string, answer: CachedAnswer, ttlMs: number): void;
  /** Moves the generation on (a write); resolves once every process will see it. */
  invalidate(): Promise<void>;
  readonly stats: ResponseCacheStats;
  stop(): Promise<void>;
}

function newStats(): ResponseCacheStats {
  return { hits: 0, misses: 0, bypasses: 0, invalidations: 0, invalidationFailures: 0, entries: 0, bytes: 0 };
}

/** Largest answer kept (bytes of JSON): bigger ones are rare and would crowd out the rest. */
export const MAX_ENTRY_BYTES = 1024 * 1024;

/**
 * The in-process store. `synced` is false while the invalidation channel (LISTEN) is down: the
 * cache is bypassed then, and flushed when it resumes (`setSynced(true)`).
 */
export class MemoryStore implements ResponseCacheStore {
  readonly kind = 'memory' as const;
  readonly stats = newStats();
  #gen = 0;
  #synced = true;
  readonly #lru: LRUCache<string, CachedAnswer>;

  constructor(maxBytes: number, heapLimit = v8.getHeapStatistics().heap_size_limit) {
    // The entries live in V8's heap, whose bound the deployment sets (the image's NODE_OPTIONS,
    // docs/deployment.md "Memory"): a cache that could fill more than half of it would end the
    // process with "heap out of memory" under load, long after start. Refused now, by name.
    if (maxBytes > heapLimit / 2) {
      const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
      throw new ConfigError([
        {
          setting: 'RESPONSE_CACHE_MAX_BYTES',
          message: `${mib(maxBytes)} is more than half of this process's heap limit (${mib(heapLimit)}): lower it, keep the cache in Redis (REDIS_URL), or raise --max-old-space-size in NODE_OPTIONS`,
        },
      ]);
    }
    this.#lru = new LRUCache<string, CachedAnswer>({
      maxSize: maxBytes,
      maxEntrySize: Math.min(MAX_ENTRY_BYTES, maxBytes),
      // UTF-16 in V8's heap, plus the key and the headers: an estimate on the safe side.
      sizeCalculation: (a, key) => 2 * (a.body.length + key.length + a.etag.length + a.contentType.length) + 200,
    });
    const lru = this.#lru;
    Object.defineProperties(this.stats, {
      entries: { get: () => lru.size, enumerable: true },
      bytes: { get: () => lru.calculatedSize, enumerable: true },
    });
  }

  async lookup(key: string): Promise<Lookup | null> {
    if (!this.#synced) return null;
    const gen = String(this.#gen);
    const answer = this.#lru.get(key);
    return { gen, answer: answer?.gen === gen ? answer : undefined };
  }

  save(key: string, answer: CachedAnswer, ttlMs: number): void {
    // Computed before the generation moved: already stale, never stored.
    if (answer.gen !== String(this.#gen) || !this.#synced) return;
    this.#lru.set(key, answer, { ttl: ttlMs });
  }

  /** Drops everything, now (this process). */
  bump(): void {
    this.#gen++;
    this.#lru.clear();
    this.stats.invalidations++;
  }

  async invalidate(): Promise<void> {
    this.bump();
  }

  /** The invalidation channel's state: down bypasses; back up flushes first. */
  setSynced(synced: boolean): void {
    if (synced && !this.#synced) this.bump();
    this.#synced = synced;
  }

  async stop(): Promise<void> {
    this.#lru.clear();
  }
}

/** How long a request may wait for Redis (connecting, each command): a hit must stay cheap. */
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long a mutation's answer waits for its invalidation to reach Redis before it is sent anyway. */
export const INVALIDATION_WAIT_MS = 5_000;

export interface RedisStoreOptions {
  url: string;
  prefix: string;
  log: { info(msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Overrides INVALIDATION_WAIT_MS (tests). */
  invalidationWaitMs?: number;
}

/**
 * A new generation: a random integer below 2^62, so that Redis's `INCR` (a signed 64-bit integer)
 * takes it, and increments it without overflowing, as the generation of a release that counted.
 */
function generationToken(): string {
  return (crypto.randomBytes(8).readBigUInt64BE() >> 2n).toString();
}

/** The key of the shared generation under a prefix: every entry is stored with the one it was computed in. */
const generationKey = (prefix: string) => `${prefix}gen`;

/**
 * A connection to the cache's Redis, as the store and SharedGeneration both use it: never a command
 * queued while disconnected (a lookup or a write then goes on at once, bypassing), each bounded in time.
 */
function cacheRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
}

/** The shared store: entries and the generation in Redis. */
export class RedisStore implements ResponseCacheStore {
  readonly kind = 'redis' as const;
  readonly stats = newStats();
  readonly #redis: Redis;
  readonly #genKey: string;
  readonly #prefix: string;
  /** Connected, and every invalidation this process owes has been made. */
  #synced = false;
  #everConnected = false;
  /** An invalidation that could not be made yet (Redis away): retried until it is. */
  #owed: Promise<void> | null = null;
  #stopped = false;
  readonly #stopHeartbeat: () => void;

  constructor(private readonly options: RedisStoreOptions) {
    this.#prefix = options.prefix;
    this.#genKey = generationKey(options.prefix);
    this.#redis = cacheRedis(options.url);
    this.#redis.on('ready', () => void this.#onReady());
    this.#redis.on('close', () => {
      if (this.#synced && !this.#stopped)
        options.log.warn({}, 'response cache: Redis unavailable, bypassing the cache');
      this.#synced = false;
    });
    // Reported by 'close' (once per outage); ioredis emits one per failed attempt.
    this.#redis.on('error', () => undefined);
    this.#stopHeartbeat = redisHeartbeat(this.#redis);
  }

  async #onReady(): Promise<void> {
    const first = !this.#everConnected;
    this.#everConnected = true;
    try {
      // Back after an outage: whatever was missed meanwhile is dropped before anything is served.
      if (!first || this.#owed) await this.#newGeneration();
      this.#owed = null;
      this.#synced = true;
      this.options.log.info(first ? 'response cache: Redis connected' : 'response cache: Redis is back, cache flushed');
    } catch {
      // The connection failed again: the next 'ready' tries again.
    }
  }

  /**
   * Moves the generation on: a new token, or, when Redis refuses to store one (out of memory under
   * `noeviction`: "OOM command not allowed"), none. Either way no entry stored before is current
   * any more; with none, every process bypasses until a lookup can set one again. Throws only when
   * Redis cannot be reached at all.
   */
  async #newGeneration(): Promise<void> {
    try {
      await this.#redis.set(this.#genKey, generationToken());
    } catch (error) {
      if (this.#redis.status !== 'ready') throw error;
      await this.#redis.del(this.#genKey);
    }
    this.stats.invalidations++;
  }

  async lookup(key: string): Promise<Lookup | null> {
    if (!this.#synced || this.#redis.status !== 'ready') return null;
    try {
      const [gen, raw] = await this.#redis.mget(this.#genKey, `${this.#prefix}e:${key}`);
      if (gen === null) {
        // No generation (a fresh Redis, one at its memory limit, or the key evicted): nothing
        // stored is trusted; a new one is set for the requests after this one, if Redis takes it.
        this.#redis.set(this.#genKey, generationToken(), 'NX').catch(() => undefined);
        return null;
      }
      const answer = raw ? decode(raw) : undefined;
      return { gen, answer: answer?.gen === gen ? answer : undefined };
    } catch {
      return null;
    }
  }

  save(key: string, answer: CachedAnswer, ttlMs: number): void {
    if (!this.#synced || answer.body.length > MAX_ENTRY_BYTES) return;
    this.#redis.set(`${this.#prefix}e:${key}`, encode(answer), 'PX', ttlMs).catch(() => undefined);
  }

  /**
   * Moves the shared generation on. If Redis cannot be reached, this process stops using the cache
   * and keeps trying in the background; the mutation's answer waits up to INVALIDATION_WAIT_MS for
   * it, so that in any outage shorter than that, no process serves an answer older than a write
   * that has been answered.
   */
  async invalidate(): Promise<void> {
    try {
      await this.#newGeneration();
      return;
    } catch {
      this.#synced = false;
    }
    this.#owed ??= this.#retry();
    const waitMs = this.options.invalidationWaitMs ?? INVALIDATION_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    const made = await Promise.race([
      this.#owed.then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!made) {
      this.stats.invalidationFailures++;
      this.options.log.error(
        { waitedMs: waitMs },
        'response cache: a write could not invalidate the shared cache (Redis unreachable); it will when Redis is back, and this process bypasses the cache until then',
      );
    }
  }

  /**
   * Before this process tells its subscribers of a change (store events): moves the generation on,
   * so that none re-reading at once is answered from before it. While Redis is away this process
   * bypasses the cache and owes an invalidation already: the events go at once.
   */
  async invalidateBeforeEvents(): Promise<void> {
    if (this.#synced) await this.invalidate();
  }

  async #retry(): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
      if (this.#redis.status !== 'ready') continue;
      try {
        await this.#newGeneration();
        this.#owed = null;
        this.#synced = true;
        return;
      } catch {
        // Still away.
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#synced = false;
    this.#stopHeartbeat();
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/**
 * The shared generation as seen by a process that keeps no answers itself (RESPONSE_CACHE_TTL_S=0, or
 * a cost budget) on a Redis where others may keep theirs (REDIS_URL): its writes move their generation
 * on too, or they would serve what those writes changed for up to their TTL (a rolling restart that
 * turns the cache on, processes whose settings differ). Only a generation that exists is replaced
 * (`SET ... XX`): a Redis that holds no response cache gets no key. A write does not wait for a Redis
 * that does not answer: the processes that keep answers bypass it meanwhile and move the generation
 * on when they reach it again.
 */
export class SharedGeneration {
  readonly #redis: Redis;
  readonly #genKey: string;

  constructor(options: Pick<RedisStoreOptions, 'url' | 'prefix'>) {
    this.#genKey = generationKey(options.prefix);
    this.#redis = cacheRedis(options.url);
    this.#redis.on('error', () => undefined);
  }

  /** After a write: a new token if there is a generation; none when Redis refuses to store one (full). */
  async moveOn(): Promise<void> {
    try {
      await this.#redis.set(this.#genKey, generationToken(), 'XX');
    } catch {
      if (this.#redis.status === 'ready') await this.#redis.del(this.#genKey).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

// One string per entry: the headers a hit needs on the first lines, the body after.
function encode(a: CachedAnswer): string {
  return `${a.gen}\n${a.storedAt}\n${a.etag}\n${a.contentType}\n${a.cacheControl}\n${a.body}`;
}

function decode(raw: string): CachedAnswer | undefined {
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < 5; i++) {
    const nl = raw.indexOf('\n', at);
    if (nl < 0) return undefined;
    parts.push(raw.slice(at, nl));
    at = nl + 1;
  }
  const [gen, storedAt, etag, contentType, cacheControl] = parts as [string, string, string, string, string];
  return { gen, storedAt: Number(storedAt), etag, contentType, cacheControl, body: raw.slice(at) };
}
