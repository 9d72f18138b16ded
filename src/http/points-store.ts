/**
 * Counters of points per caller per fixed window, for the cost budget (src/policy/cost-budget.ts):
 * "charge N units to this key if they fit in what is left". The request limiter
 * (@fastify/rate-limit, http/rate-limit.ts) adds 1 per request whether or not it fits, and its
 * stores have no "add N"; a cost charge must add N at once and must not spend anything when it is
 * refused (a refused operation runs nothing, so it costs nothing), so the check and the increment are
 * one atomic step: a Lua script in Redis, one synchronous step in memory.
 *
 * Where the counters live follows the request limiter exactly: in Redis when REDIS_URL is set (the
 * same connection, its own key prefix), in memory otherwise, and in memory while Redis is away or a
 * command fails (the same limit per process meanwhile; rate-limit.ts logs the change of state).
 */
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';

/** The outcome of a charge: the units were added (`allowed`) or nothing was. */
export interface PointsCharge {
  allowed: boolean;
  /** Points spent in the current window, this charge included when allowed. */
  spent: number;
  /** Milliseconds until the window ends and `spent` is 0 again. */
  resetMs: number;
}

export interface PointsStore {
  /** Adds `units` to `key`'s window when `spent + units <= limit`; otherwise changes nothing. */
  charge(key: string, units: number, limit: number): Promise<PointsCharge>;
}

// KEYS[1]: the counter; ARGV: units, limit, window (ms). Returns {allowed, spent, pttl}.
const CHARGE_SCRIPT = `
local units = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  spent = 0
  ttl = window
end
if spent + units > limit then
  return {0, spent, ttl}
end
spent = redis.call('INCRBY', KEYS[1], units)
if spent == units then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
end
return {1, spent, ttl}
`;

/** Callers remembered in memory (per process) before the least recently charged is forgotten. */
const MEMORY_CALLERS = 100_000;

function memoryStore(windowMs: number): PointsStore & { chargeNow: PointsStore['charge'] } {
  const windows = new LRUCache<string, { spent: number; endsAt: number }>({ max: MEMORY_CALLERS });
  const chargeNow = (key: string, units: number, limit: number): Promise<PointsCharge> => {
    const now = Date.now();
    let entry = windows.get(key);
    if (!entry || entry.endsAt <= now) {
      entry = { spent: 0, endsAt: now + windowMs };
      windows.set(key, entry);
    }
    const allowed = entry.spent + units <= limit;
    if (allowed) entry.spent += units;
    return Promise.resolve({ allowed, spent: entry.spent, resetMs: entry.endsAt - now });
  };
  return { charge: chargeNow, chargeNow };
}

/**
 * The points store of the cost budget: Redis (shared by every process) while `redis` is connected,
 * memory otherwise. `prefix` keeps its keys apart from the request counters'.
 */
export function createPointsStore(windowMs: number, redis: Redis | null, prefix: string): PointsStore {
  const local = memoryStore(windowMs);
  if (!redis) return local;
  // EVALSHA after the first call (ioredis loads the script once per connection).
  if (!('chargePoints' in redis)) redis.defineCommand('chargePoints', { numberOfKeys: 1, lua: CHARGE_SCRIPT });
  const command = redis as Redis & {
    chargePoints(key: string, units: number, limit: number, windowMs: number): Promise<[number, number, number]>;
  };
  return {
    async charge(key, units, limit) {
      if (redis.status !== 'ready') return local.chargeNow(key, units, limit);
      try {
        const [allowed, spent, ttl] = await command.chargePoints(prefix + key, units, limit, windowMs);
        return { allowed: allowed === 1, spent, resetMs: ttl };
      } catch {
        // A command that failed or timed out: counted here, as the request limiter does.
        return local.chargeNow(key, units, limit);
      }
    },
  };
}
