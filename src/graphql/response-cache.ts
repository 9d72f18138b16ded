/**
 * HTTP caching of GraphQL answers and the gateway's response cache (docs/caching.md).
 *
 * - Headers, on every answer of /graphql that Apollo produced: `Cache-Control` from the operation's
 *   policy (src/graphql/cache-policy.ts) and CACHE_PUBLIC_MAX_AGE_S, `Vary: Accept, Accept-Encoding,
 *   Authorization`, a strong `ETag` on every 200 read without errors, and `304 Not Modified` (no
 *   body) for a GET whose `If-None-Match` holds that tag.
 * - The response cache (RESPONSE_CACHE_TTL_S > 0): a request without credentials is looked up
 *   before Apollo sees it (a route preHandler, after the rate limit and the trusted-document and
 *   cost checks); a hit is answered from the store, with `Age`, without parsing, validating or
 *   touching the database. A miss runs as usual, and its answer is stored when it is `public`.
 *
 * Hand-written rather than `@apollo/server-plugin-response-cache` or `@envelop/response-cache`:
 * Apollo's plugin serves hits from inside Apollo's request pipeline (after parsing, validation and
 * every plugin) and takes its policy from the per-field cache-control plugin this service turned
 * off for its cost; Envelop's belongs to Envelop's pipeline. What is generic is a library: the LRU
 * (lru-cache), Redis (ioredis), the policy model (@apollo/cache-control-types).
 */
import crypto from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { printSchema, type GraphQLSchema } from 'graphql';
import { CACHE_POLICY_HEADER } from './cache-policy';
import { entityTag, ifNoneMatchHits, notModified } from '../http/etag';
import type { Database } from '../db/database';
import type { Unlisten } from '../db/listen';
import { STORE_EVENTS_CHANNEL } from '../modules/events/store-events';
import {
  MemoryStore,
  RedisStore,
  SharedGeneration,
  type CachedAnswer,
  type ResponseCacheStore,
} from '../http/response-cache.store';
import { readGetParameters } from '../common/graphql/get-parameters';

/** The channel a mutation notifies in-process caches of other processes on (memory store, PostgreSQL). */
export const RESPONSE_CACHE_CHANNEL = 'response_cache';

/** The request headers a GraphQL answer depends on (besides the query itself). */
export const GRAPHQL_VARY = ['Accept', 'Accept-Encoding', 'Authorization'];

export interface HttpCacheSettings {
  /** `Cache-Control: public, max-age` of anonymous public reads; 0: `no-cache` (revalidate each time). */
  publicMaxAgeS: number;
  /** Response cache lifetime of an entry; 0: no response cache. */
  responseTtlS: number;
  /** In-process store bound (bytes). */
  maxBytes: number;
  /** REDIS_URL: the store is shared through Redis. */
  redisUrl: string | null;
  redisPrefix: string;
  /**
   * Every answer holds something of its caller's (the cost budget's `extensions.cost`): nothing is
   * public, and the response cache stays off.
   */
  perCaller?: boolean;
  /**
   * What every answer depends on besides the request: the schema served and whether it answers
   * introspection (`schemaFingerprint`). Part of every key, so processes sharing one Redis that serve
   * different schemas (a rolling deploy, `GRAPHQL_FEDERATION` or `GRAPHQL_INTROSPECTION` set on some
   * only) never answer from each other's entries.
   */
  fingerprint?: string;
}

/**
 * The fingerprint of what a process's answers depend on besides the request (HttpCacheSettings): the
 * schema, introspection, and the limits a hit skips with Apollo (depth, aliases, cost, ...), so that a
 * document one process refuses is never answered there from another's entry.
 */
export function schemaFingerprint(
  schema: GraphQLSchema,
  introspection: boolean,
  limits: Partial<Record<string, number>> = {},
): string {
  return crypto.hash('sha256', `${introspection}\n${JSON.stringify(limits)}\n${printSchema(schema)}`, 'base64url');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the response cache's lookup on a miss: where and in which generation to store the answer. */
    responseCacheMiss: { key: string; gen: string } | null;
  }
}

/** Adds `names` to the reply's Vary header, each once (compared without case). */
function appendVary(reply: FastifyReply, names: string[]): void {
  const current = reply.getHeader('vary');
  const list =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  if (list.includes('*')) return;
  const have = new Set(list.map((s) => s.toLowerCase()));
  for (const name of names) if (!have.has(name.toLowerCase())) list.push(name);
  reply.header('vary', list.join(', '));
}

/** One operation as it arrived (GET's query string or a POST body), normalised, or null when not cacheable. */
function operationOf(request: FastifyRequest): unknown[] | null {
  let source: Record<string, unknown>;
  if (request.method === 'GET') {
    // As Apollo reads it (get-parameters.ts); what it refuses is not cached.
    const read = readGetParameters(request.url);
    if (!read.ok) return null;
    const { variables, extensions, ...texts } = read.values;
    source = { ...texts };
    try {
      if (variables !== undefined) source.variables = JSON.parse(variables);
      if (extensions !== undefined) source.extensions = JSON.parse(extensions);
    } catch {
      return null;
    }
  } else if (request.method === 'POST') {
    const body = request.body;
    // A batch is answered as a whole and never cached.
    if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
    source = body as Record<string, unknown>;
  } else return null;
  if (source.query === undefined && source.extensions === undefined && source.documentId === undefined) return null;
  return [
    source.query ?? null,
    source.operationName ?? null,
    source.variables ?? null,
    source.extensions ?? null,
    source.documentId ?? null,
  ];
}

export interface GraphQLCache {
  /** The store, when RESPONSE_CACHE_TTL_S > 0. */
  store: ResponseCacheStore | null;
  /** Route preHandler of /graphql: answers hits. */
  lookup(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** Route onSend of /graphql: the headers, 304s, and storing misses. */
  onSend: onSendHookHandler;
  /** Called by the cache-policy step after every mutation, before its answer. */
  invalidate(): Promise<void>;
  /**
   * Redis: awaited before store events reach this process's subscribers. The database sends a
   * write's events when it commits, before the writing gateway has moved the shared generation on
   * (and never for a write by hand): a subscriber re-reading at once would be answered from before
   * the change it was just told of. Null in process: the same notification empties that cache first.
   */
  beforeEvents: (() => Promise<void>) | null;
  stop(): Promise<void>;
}

/**
 * Keeps an in-process cache in step with the other processes: their writes (and store events,
 * whoever made them) drop this process's entries; while a channel is down the cache is bypassed, and
 * flushed when it is back (a fresh start of LISTEN reports up, which flushes an empty cache: harmless).
 * Returns the LISTENs' ends.
 */
async function listenForWrites(
  memory: MemoryStore,
  db: Pick<Database, 'listen'>,
  log: FastifyBaseLogger,
): Promise<Unlisten[]> {
  const unlisten: Unlisten[] = [];
  const up = new Map<string, boolean>();
  for (const channel of [RESPONSE_CACHE_CHANNEL, STORE_EVENTS_CHANNEL]) {
    up.set(channel, false);
    memory.setSynced(false);
    unlisten.push(
      await db.listen(channel, {
        onNotify: () => memory.bump(),
        onState(listening, error) {
          up.set(channel, listening);
          const all = [...up.values()].every(Boolean);
          // A loss comes with its cause; none: stopping, or never listening (behind a pooler without
          // DATABASE_DIRECT_URL, which the start says once).
          if (!all && error) log.warn({ channel }, 'response cache: LISTEN lost, bypassing the cache until it is back');
          memory.setSynced(all);
        },
      }),
    );
  }
  return unlisten;
}

/** The response cache's store (Redis with REDIS_URL, else in process), none when `ttlMs` is 0. */
async function openStore(
  settings: HttpCacheSettings,
  ttlMs: number,
  db: Pick<Database, 'listen'>,
  log: FastifyBaseLogger,
): Promise<{ store: ResponseCacheStore | null; unlisten: Unlisten[] }> {
  if (ttlMs > 0 && settings.redisUrl) {
    return { store: new RedisStore({ url: settings.redisUrl, prefix: settings.redisPrefix, log }), unlisten: [] };
  }
  if (ttlMs <= 0) return { store: null, unlisten: [] };
  const memory = new MemoryStore(settings.maxBytes);
  return { store: memory, unlisten: await listenForWrites(memory, db, log) };
}

/**
 * After a write: drops the stored answers here (and, in Redis, everyone's). Other processes' in-process
 * caches are told by the database itself, inside the write's transaction: `response_cache` for the
 * catalogue's rows (migration 20261129120000_response_cache_notify), `store_events` for stock,
 * statuses and orders; a notification sent from here after the commit could be lost with the
 * connection, leaving them stale until the TTL.
 */
function invalidator(store: ResponseCacheStore | null, shared: SharedGeneration | null): () => Promise<void> {
  return async () => {
    if (store) await store.invalidate();
    else await shared?.moveOn();
  };
}

/** A stored answer, as is or as 304 when GET's If-None-Match names it. */
function sendHit(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer) {
  reply.header('etag', answer.etag);
  reply.header('cache-control', answer.cacheControl);
  appendVary(reply, GRAPHQL_VARY);
  reply.header('age', Math.max(0, Math.floor((Date.now() - answer.storedAt) / 1000)));
  if (request.method === 'GET' && ifNoneMatchHits(request.headers['if-none-match'], answer.etag)) {
    notModified(reply);
    return reply.send();
  }
  return reply.code(200).header('content-type', answer.contentType).send(answer.body);
}

/** The route's preHandler: answers a hit; notes a miss on the request, for `onSend` to store. */
function cacheLookup(
  store: ResponseCacheStore | null,
  { fingerprint = '', publicMaxAgeS }: Pick<HttpCacheSettings, 'fingerprint' | 'publicMaxAgeS'>,
): GraphQLCache['lookup'] {
  // Named: printRoutes({ includeHooks: true }) lists the route's hooks by name.
  const lookup: GraphQLCache['lookup'] = async (request, reply) => {
    request.responseCacheMiss = null;
    // Credentials of any kind (a key, a token, a malformed header) are never served from the cache.
    if (!store || request.headers.authorization !== undefined || request.headers.upgrade !== undefined) return;
    const operation = operationOf(request);
    if (!operation) return;
    const accept = request.headers.accept ?? '';
    let key: string;
    try {
      // CACHE_PUBLIC_MAX_AGE_S too: a hit is sent with the Cache-Control it was stored with, and entries
      // in Redis outlive the processes (a restart or a rolling deploy that changes it).
      key = crypto.hash('sha256', JSON.stringify([fingerprint, publicMaxAgeS, accept, ...operation]), 'base64url');
    } catch {
      // Nested deeper than JSON.stringify's stack reaches (this runs before the input checks): not
      // cached, and the request goes on to be refused, or answered, as any other.
      return;
    }
    const found = await store.lookup(key);
    if (!found) {
      store.stats.bypasses++;
      return;
    }
    if (found.answer) {
      store.stats.hits++;
      return sendHit(request, reply, found.answer);
    }
    store.stats.misses++;
    request.responseCacheMiss = { key, gen: found.gen };
  };
  return lookup;
}

/**
 * The route's onSend: Cache-Control from the operation's policy (the cache-policy plugin's marker
 * header), Vary, ETag and 304; a public answer that missed is stored for at most `ttlMs`.
 */
function cacheOnSend(
  settings: Pick<HttpCacheSettings, 'perCaller' | 'publicMaxAgeS'>,
  ttlMs: number,
  store: ResponseCacheStore | null,
): GraphQLCache['onSend'] {
  // Synchronous, so a hook with a callback (an async hook costs a promise and a microtask turn).
  const tag = (request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown => {
    const marker = reply.getHeader(CACHE_POLICY_HEADER);
    if (marker === undefined) {
      // Not Apollo's answer: a hit (headers set), the explorer page, or a refusal by a hook or the
      // body parser (bad JSON, 413, 415, 429). Its form depends on Accept as every answer's does.
      // Such an error is `no-store` already (src/http/errors.ts, sendError); Apollo's own refusals of
      // the request's shape (GET variables that are not JSON, a parameter twice, a query that is not a
      // string) reach no plugin and come without one: `no-store` too, as every error.
      appendVary(reply, GRAPHQL_VARY);
      if (reply.statusCode >= 400 && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    }
    reply.removeHeader(CACHE_POLICY_HEADER);
    appendVary(reply, GRAPHQL_VARY);
    const policy = String(marker);
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    if (policy === 'no-store' || reply.statusCode !== 200 || Array.isArray(request.body) || body === null) {
      reply.header('cache-control', 'no-store');
      return payload;
    }
    const etag = entityTag(body, String(reply.getHeader('content-type') ?? ''));
    reply.header('etag', etag);
    let cacheControl = 'private, no-cache';
    let storeForMs = 0;
    if (policy.startsWith('public') && !settings.perCaller) {
      const hinted = policy.includes(';') ? Number(policy.slice(policy.indexOf(';') + 1)) : Infinity;
      const maxAge = Math.min(settings.publicMaxAgeS, hinted);
      cacheControl = maxAge > 0 ? `public, max-age=${maxAge}` : 'no-cache';
      storeForMs = Math.min(ttlMs, hinted * 1000);
    }
    reply.header('cache-control', cacheControl);
    const miss = request.responseCacheMiss;
    if (store && miss && storeForMs > 0) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json');
      store.save(miss.key, { gen: miss.gen, storedAt: Date.now(), etag, contentType, cacheControl, body }, storeForMs);
    }
    if (request.method === 'GET' && ifNoneMatchHits(request.headers['if-none-match'], etag)) {
      return notModified(reply);
    }
    return payload;
  };
  // Named: printRoutes({ includeHooks: true }) lists the route's hooks by name.
  const onSend: onSendHookHandler = (request, reply, payload, done) => done(null, tag(request, reply, payload));
  return onSend;
}

/**
 * Builds the HTTP cache of /graphql; with a response cache, starts its store (and, in process,
 * its LISTEN for writes made by other processes).
 */
export async function createGraphQLCache(
  settings: HttpCacheSettings,
  db: Pick<Database, 'kind' | 'listen' | 'prisma'>,
  log: FastifyBaseLogger,
): Promise<GraphQLCache> {
  if (settings.perCaller && settings.responseTtlS > 0)
    log.warn(
      "response cache off: with RATE_LIMIT_COST_BUDGET every answer carries its caller's budget (extensions.cost), so none can be shared",
    );
  const ttlMs = settings.perCaller ? 0 : settings.responseTtlS * 1000;
  const { store, unlisten } = await openStore(settings, ttlMs, db, log);
  // No answers kept here, but other processes on this Redis may keep theirs: this one's writes move them on.
  const shared =
    !store && settings.redisUrl ? new SharedGeneration({ url: settings.redisUrl, prefix: settings.redisPrefix }) : null;
  return {
    store,
    invalidate: invalidator(store, shared),
    beforeEvents: store instanceof RedisStore ? () => store.invalidateBeforeEvents() : null,
    lookup: cacheLookup(store, settings),
    onSend: cacheOnSend(settings, ttlMs, store),
    async stop() {
      for (const u of unlisten) await u();
      await store?.stop();
      await shared?.stop();
    },
  };
}
