/**
 * The rate limit (@fastify/rate-limit): RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS for each
 * API key, or for each client address when anonymous, when the credential is bad, and while a
 * presented key is not yet verified. Answers 429 RATE_LIMITED with Retry-After; every response
 * carries the IETF draft RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset headers. Health
 * checks are not limited.
 *
 * When it counts (auth.hooks.ts has the three steps): before any credential is looked up in the
 * database. A key this process has verified before (the API-key cache) is counted against the key;
 * a key not verified yet against its client address's budget for key lookups (`lookup:<address>`),
 * so a flood of unknown or random keys spends that budget and then gets 429 without a query; an
 * anonymous request against its client address (`ip:<address>`), a budget of its own, so anonymous
 * floods never lock out key holders at the same address. A key verified by a lookup is then counted
 * against its own budget too (`chargeKey`): its first request in a process (or, with the cache off,
 * every request) costs one unit of the address's lookup budget as well.
 *
 * Where the counters live: in memory (one process) unless REDIS_URL is set, when every process
 * shares them through Redis. Redis going away costs no latency and does not switch the limit off:
 * the client fails fast (no offline queue, short timeouts) and reconnects in the background, and
 * meanwhile each process counts in memory (the same limit per process); the change of state is
 * logged once each way and /readyz reports it (`rateLimitStoreState`).
 *
 * The plugin's own per-route hook is not used (global: false): route-level hooks run after every
 * app-level onRequest hook, that is after the credential lookup. The limiter is called from an
 * app-level hook placed between the two caller steps instead, through the plugin's `createRateLimit`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import Redis, { ReplyError } from 'ioredis';
import { redisHeartbeat } from './redis-heartbeat';
import { StartupError } from '../db/startup';
import type { Config } from '../config';
import { RateLimitedError } from '../errors/app-error';
import { callerIdentity, type Caller } from '../modules/auth/caller';
import { addressBucket } from './client-address';

// The plugin's stores (not in its typings): the failover store below delegates to them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as StoreClass;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as StoreClass;

type StoreCallback = (err: Error | null, res?: { current: number; ttl: number }) => void;
interface Store {
  incr(key: string, cb: StoreCallback, timeWindow: number, max: number): void;
  read?(key: string, cb: StoreCallback, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}
type StoreClass = new (...args: unknown[]) => Store;

/**
 * Who pays for a unit of the budget: `key:<id>` for an API key, `sub:<issuer> <sub>` for a signed-in
 * person (so one shopper's burst never limits another behind the same address), `ip:<address>`
 * otherwise (`callerIdentity`; the address as `addressBucket` groups it: no port, an IPv6 /64).
 * HTTP requests and WebSocket messages name their payer the same way,
 * so they spend one budget.
 */
export function rateLimitSubject(caller: Caller | null, address: string): string {
  return caller ? callerIdentity(caller) : `ip:${addressBucket(address)}`;
}

/**
 * The subject a request is counted against before its credential is looked up: its key when this
 * process knows it already; `lookup:<address>` when it presents a key not verified yet; its address
 * (`ip:`) when anonymous. Unverified keys have a budget of their own per address (issue 28, item 5):
 * counted with the anonymous requests, a flood of anonymous requests from an address (a NAT, an
 * office proxy) would refuse every key holder behind it whose key this process has not seen yet.
 * Still counted before the lookup, so a flood of random keys costs no query once over its budget.
 */
export function rateLimitKey(request: FastifyRequest): string {
  if (!request.caller && request.presentedKey !== null) return `lookup:${addressBucket(request.ip)}`;
  return rateLimitSubject(request.caller, request.ip);
}

const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/** Where the counters are: 'memory' (no REDIS_URL), 'redis', or 'memory-fallback' (Redis away). */
export type RateLimitStoreState = 'memory' | 'redis' | 'memory-fallback';

/** The outcome of a charge: whether it was within the budget, and the budget's state after it. */
export interface Charge {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (Retry-After when not allowed). */
  resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Charges `units` of the budget to `subject` (`rateLimitSubject`): the one way anything is counted,
   * HTTP requests (below) and WebSocket messages (graphql/subscriptions.ts) alike. Never throws for
   * being over the limit: the caller decides how to refuse (429 over HTTP, a close over WebSocket).
   */
  charge(subject: string, units?: number): Promise<Charge>;
  /** Counts the request (by `rateLimitKey`); throws RateLimitedError over the limit. */
  limit(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts a request against the key it was just verified to carry (see above). */
  chargeKey(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  state(): RateLimitStoreState;
  /**
   * Whether the counters' Redis is connected but refuses their commands (an error reply: OOM,
   * READONLY, an ACL): nothing written to it is kept. Not while it is merely not connected (yet).
   */
  redisRefusing(): boolean;
  /** The Redis connection of the counters (null without REDIS_URL): the cost budget's points share it. */
  redis: Redis | null;
}

/** The message of a refusal by the rate limit, over HTTP and WebSocket alike. */
export const rateLimitMessage = (charge: Charge): string =>
  `Rate limit of ${charge.limit} requests exceeded; retry in ${charge.resetSeconds} seconds`;

/**
 * Redis while it is connected, the plugin's in-memory store otherwise (and for a command that fails
 * on the way): a request never waits for a Redis that is not there. Written here because the
 * plugin's `skipOnError` can only skip the limit, not keep it.
 */
function failoverStore(connection: RedisConnection, prefix: string): StoreClass {
  const { redis } = connection;
  return class FailoverStore implements Store {
    readonly #redis: Store;
    readonly #local: Store;
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      this.#redis = new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, prefix);
      this.#local = new LocalStore(params.continueExceeding, params.exponentialBackoff);
    }
    incr(key: string, cb: StoreCallback, timeWindow: number, max: number): void {
      if (redis.status !== 'ready') return this.#local.incr(key, cb, timeWindow, max);
      this.#redis.incr(
        key,
        (err, res) => {
          connection.answered(err);
          if (err) this.#local.incr(key, cb, timeWindow, max);
          else cb(null, res);
        },
        timeWindow,
        max,
      );
    }
    child(): Store {
      return this;
    }
  } as unknown as StoreClass;
}

/**
 * Checks once, at start, that the Redis of REDIS_URL has the database the URL names. ioredis answers a
 * SELECT the server refuses (a number past its `databases` setting, 16 by default) with an error
 * event, and then serves the connection anyway, on database 0: the counters (and the response cache)
 * went into another database than the one configured, possibly another application's, while /readyz
 * said `ok (redis)`. A Redis that does not answer yet is no error here: the gateway counts in memory
 * until it does.
 */
export async function checkRedisDatabase(url: string | null): Promise<void> {
  if (!url) return;
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  if (db === '' || db === '0') return;
  parsed.pathname = '';
  const redis = new Redis(parsed.toString(), {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    try {
      await redis.connect();
    } catch {
      return; // not answering: counted in memory until it does, as any time Redis is away
    }
    await redis.select(db).catch((error: Error) => {
      if (!/^ERR /.test(error.message)) return; // a timeout: the same
      throw new StartupError(
        `REDIS_URL names Redis database ${db}, which this Redis refuses (${error.message}). Fix the number at ` +
          'the end of REDIS_URL: a Redis has databases 0 to 15 unless its `databases` setting says more.',
        { setting: 'REDIS_URL' },
      );
    });
  } finally {
    redis.disconnect();
  }
}

/** How long a request may wait for Redis: connecting, and each command. */
const REDIS_CONNECT_TIMEOUT_MS = 1_000;
const REDIS_COMMAND_TIMEOUT_MS = 500;

interface RedisConnection {
  redis: Redis;
  /** Connected, and not refusing the counters' commands. */
  available: () => boolean;
  /** Told how each command of the counters went (null: it succeeded). */
  answered: (err: Error | null) => void;
  /** Connected, but refusing the counters' commands. */
  refusing: () => boolean;
}

function connectRedis(app: FastifyInstance, url: string): RedisConnection {
  const redis = new Redis(url, {
    // Never queue a command while disconnected: the store above counts in memory instead.
    enableOfflineQueue: false,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    // Reconnect in the background, forever, at most 2 s apart.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // One line per change of state, not one per failed attempt or request.
  let up: boolean | null = null;
  const report = (now: boolean, err?: Error) => {
    if (up === now) return;
    const before = up;
    up = now;
    if (now)
      app.log.info(
        before === null
          ? 'rate-limit Redis connected: counters shared by every process'
          : 'rate-limit Redis is back: counters shared again',
      );
    else
      app.log.warn(
        { err: err ? { message: err.message } : undefined },
        'rate-limit Redis unavailable: counting per process in memory until it is back',
      );
  };
  // A Redis that refuses the commands themselves (an error reply: OOM at its maxmemory, READONLY
  // from a replica left at the address after a failover, an ACL) answers PING and stays connected,
  // yet counts nothing, for as long as it lasts: an outage like a lost connection, said as one.
  let refusing = false;
  const answered = (err: Error | null) => {
    if (err && err instanceof ReplyError) {
      refusing = true;
      report(false, err);
    } else if (!err && refusing) {
      refusing = false;
      report(true);
    }
  };
  redis.on('ready', () => {
    refusing = false;
    report(true);
  });
  // A command that timed out on a live connection (a busy Redis or host) is no outage: that request
  // was counted in memory (the store above) and the state stays; only a lost connection is one, or
  // a Redis refusing the commands (above).
  redis.on('error', (err: Error) => {
    if (redis.status !== 'ready') report(false, err);
  });
  redis.on('close', () => report(false));
  const stopHeartbeat = redisHeartbeat(redis);
  app.addHook('onClose', async () => {
    up = false; // quitting is no outage
    stopHeartbeat();
    await redis.quit().catch(() => redis.disconnect());
  });
  return {
    redis,
    available: () => redis.status === 'ready' && !refusing,
    answered,
    refusing: () => redis.status === 'ready' && refusing,
  };
}

export async function registerRateLimit(
  app: FastifyInstance,
  settings: Pick<Config['rateLimit'], 'redisUrl' | 'max' | 'windowMs' | 'redisPrefix'>,
): Promise<RateLimiter> {
  const connection = settings.redisUrl ? connectRedis(app, settings.redisUrl) : null;
  await app.register(rateLimit, {
    global: false,
    max: settings.max,
    timeWindow: settings.windowMs,
    // Every count goes through `charge` below, which names its payer on a request-like object.
    keyGenerator: (request) => (request as unknown as { subject: string }).subject,
    ...(connection ? { store: failoverStore(connection, settings.redisPrefix) } : {}),
  });
  const check = app.createRateLimit();
  // The plugin's check reads the key and the route's rate-limit group from a request; a charge has
  // neither route nor request (a WebSocket message), so it passes what the check reads.
  const charge = async (subject: string, units = 1): Promise<Charge> => {
    const payer = { subject, routeOptions: { config: {} } } as unknown as FastifyRequest;
    const counted = async () => {
      const result = await check(payer);
      // Only the plugin's allow-list (not used) answers `isAllowed`: never here.
      if (result.isAllowed) throw new Error('rate limit: unexpected allow-listed charge');
      return result;
    };
    // The plugin's stores add one unit a call; a charge of n is n calls (stopping once over).
    let result = await counted();
    for (let i = 1; i < units && !result.isExceeded; i++) result = await counted();
    return {
      allowed: !result.isExceeded,
      limit: result.max,
      remaining: result.remaining,
      resetSeconds: result.ttlInSeconds,
    };
  };
  const count = async (request: FastifyRequest, reply: FastifyReply) => {
    if (HEALTH_PATHS.has(request.url)) return;
    const result = await charge(rateLimitKey(request));
    reply.header('ratelimit-limit', result.limit);
    reply.header('ratelimit-remaining', result.remaining);
    reply.header('ratelimit-reset', result.resetSeconds);
    if (!result.allowed) {
      reply.header('retry-after', result.resetSeconds);
      throw new RateLimitedError(rateLimitMessage(result));
    }
  };
  return {
    charge,
    limit: count,
    chargeKey: count,
    state: () => (!connection ? 'memory' : connection.available() ? 'redis' : 'memory-fallback'),
    redisRefusing: () => connection?.refusing() ?? false,
    redis: connection?.redis ?? null,
  };
}
