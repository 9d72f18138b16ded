/**
 * The in-process cache of successful API-key authentications, and what keeps it honest.
 *
 * Reading a key's row costs far more server CPU than the rest of a small request (Prisma's query
 * compiler, not the database), so a process remembers the keys it has seen valid, by SHA-256 hash
 * (at most `API_KEY_CACHE_MAX` of them, the least recently used evicted first). Only successes are
 * kept: an unknown or revoked key reads the database every time, so random keys cannot fill the
 * cache and a key created a moment ago works at once.
 *
 * A revocation must still apply on the next request in every process. Whatever changes a key's
 * validity or scopes sends `pg_notify('api_key_changed', '<key id>')` in the same transaction
 * (ApiKeyService), which PostgreSQL delivers when, and only if, it commits; every process LISTENs on
 * that channel (`Database.listen`) and drops the key. The cache is used only while the listener is
 * known to be up: when it is lost (PostgreSQL: its connection failed), the cache is emptied and
 * bypassed, every request reading the database as if there were no cache, until it LISTENs again.
 * Entries also expire after `API_KEY_CACHE_TTL_MS`, a safety net for a change made without a
 * notification (an UPDATE by hand) or a connection that died without a sign.
 */
import { LRUCache } from 'lru-cache';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database';
import type { Unlisten } from '../../db/listen';
import type { KeyCaller } from './caller';

/** The channel of key changes; the payload is the key's id, or empty for "every key". */
export const API_KEY_CHANNEL = 'api_key_changed';
/** How many keys a process remembers. A row is a few hundred bytes: 10,000 is a few MB at most. */
export const API_KEY_CACHE_MAX = 10_000;

/** A key known valid, and when its use was last recorded (ApiKeyService writes it once a minute). */
export interface CachedKey {
  caller: KeyCaller;
  lastUsedAt: Date | null;
}

/**
 * Read-through is done by the caller: `get`, and on a miss, `version()` before reading the database
 * and `set(version, ...)` after. A notification or a change of the listener's state in between
 * bumps the version, and the result read before it is then not kept: it may be what was just
 * revoked.
 */
export class ApiKeyCache {
  readonly #entries: LRUCache<string, CachedKey>;
  #listening = false;
  #version = 0;
  readonly #changeListeners = new Set<(payload: string) => void>();
  /** Lookups answered from the cache, and lookups that read the database (the metrics read them). */
  readonly stats = { hits: 0, misses: 0 };

  /** API_KEY_CACHE_TTL_MS: how long an entry is used without reading its key again. */
  readonly ttlMs: number;

  constructor({ ttlMs, max = API_KEY_CACHE_MAX }: { ttlMs: number; max?: number }) {
    this.ttlMs = ttlMs;
    this.#entries = new LRUCache({ max, ttl: ttlMs });
  }

  /** Whether the cache is in use (its listener is up). */
  get active(): boolean {
    return this.#listening;
  }

  get(hash: string): CachedKey | undefined {
    const entry = this.peek(hash);
    if (entry) this.stats.hits++;
    else this.stats.misses++;
    return entry;
  }

  /**
   * The entry, not counted in `stats`: the rate limit's look before the authentication (which counts
   * its own lookup), so that one request is one hit or one miss, and a miss is a database read.
   */
  peek(hash: string): CachedKey | undefined {
    return this.#listening ? this.#entries.get(hash) : undefined;
  }

  /** Taken before reading a key from the database; see `set`. */
  version(): number {
    return this.#version;
  }

  /** Remembers a key read valid, unless something was invalidated since `version` was taken. */
  set(version: number, hash: string, entry: CachedKey): void {
    if (this.#listening && version === this.#version) this.#entries.set(hash, entry);
  }

  /**
   * Calls `listener` with every key change heard (the key's id, or `''` for "any key": a payload
   * that is not an id, or the listener coming back after changes may have been missed). Open
   * subscriptions re-check their key with it (src/subscriptions/subscriptions.ts). Returns the remover.
   */
  onChange(listener: (payload: string) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** A notification: drops the key with this id, or everything when the payload is not an id. */
  invalidate(payload: string): void {
    this.#version++;
    if (!/^\d{1,19}$/.test(payload)) {
      this.#entries.clear();
      this.#notify('');
      return;
    }
    const id = BigInt(payload);
    const stale: string[] = [];
    for (const [hash, entry] of this.#entries.entries()) if (entry.caller.keyId === id) stale.push(hash);
    for (const hash of stale) this.#entries.delete(hash);
    // After the entries are gone: a listener re-reading the key must not find it cached.
    this.#notify(payload);
  }

  /** The listener came up (start with nothing: changes may have been missed) or went down. */
  setListening(listening: boolean): void {
    this.#version++;
    this.#entries.clear();
    const resumed = listening && !this.#listening;
    this.#listening = listening;
    if (resumed) this.#notify('');
  }

  #notify(payload: string): void {
    for (const listener of this.#changeListeners) listener(payload);
  }
}

/**
 * Creates the cache and starts listening for key changes; `ttlMs` 0 means no cache at all (and no
 * listener). Resolves once the listener's first attempt is over, so a server is ready with its
 * cache in use unless the listener could not start (then it retries, logged, with the cache off).
 */
export async function startApiKeyCache(
  db: Database,
  { ttlMs }: { ttlMs: number },
  log: FastifyBaseLogger,
): Promise<{ cache: ApiKeyCache; stop: Unlisten } | null> {
  if (ttlMs <= 0) return null;
  const cache = new ApiKeyCache({ ttlMs });
  let lostAt: number | null = null;
  const stop = await db.listen(API_KEY_CHANNEL, {
    onNotify: (payload) => cache.invalidate(payload),
    onState: (listening, error) => {
      cache.setListening(listening);
      if (listening) {
        if (lostAt !== null) log.info({ downMs: Date.now() - lostAt }, 'API-key cache: listening again, cache in use');
        lostAt = null;
      } else if (error && lostAt === null) {
        // Stopping (on close) reports no error; retries after the first failure are not news.
        lostAt = Date.now();
        log.warn(
          { err: error },
          'API-key cache: no LISTEN connection (reconnecting); every key is read from the database meanwhile',
        );
      }
    },
  });
  return { cache, stop };
}
