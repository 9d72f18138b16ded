/**
 * Who is calling and how much they may: three onRequest hooks, in this order, all before the body is
 * read. Who is calling as far as is known without the database (the Authorization header: an access
 * token verified, an API key looked up in the cache), then the rate limit (every request counted
 * before any credential lookup), then the lookup, 401 for a bad credential and the REST route's
 * scope (modules/auth/auth.hooks.ts).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config';
import { SharedReadYourWrites } from '../db/read-routing';
import type { TokenVerifier } from '../modules/auth/access-token';
import type { ApiKeyService } from '../modules/auth/api-key.service';
import { registerAccessControl, registerCallerResolution } from '../modules/auth/auth.hooks';
import type { RateLimiter } from './rate-limit';
import type { RequestReadScopes } from './read-scope';

export interface AccessOptions {
  apiKeys: ApiKeyService;
  /** Access tokens (AUTH_JWT_*, AUTH_DEV_TOKENS); null: API keys only. */
  tokens: TokenVerifier | null;
  /** The rate limit (http/rate-limit.ts), already registered. */
  limiter: RateLimiter;
  /** Each request's read scope (read replicas); null without replicas. */
  readScope: RequestReadScopes | null;
  /** Where the read-your-writes windows are kept in the rate limit's Redis (RATE_LIMIT_REDIS_PREFIX). */
  redisPrefix: Config['rateLimit']['redisPrefix'];
  /** How long a caller's reads go to the primary after a write (postgres only; 0 otherwise). */
  readYourWritesMs: number;
}

/** Read-your-writes across processes: the window in the rate limit's Redis (db/read-routing.ts). */
function shareReadYourWrites(log: FastifyBaseLogger, options: AccessOptions): void {
  const { readScope, limiter, redisPrefix, readYourWritesMs } = options;
  if (!readScope || !limiter.redis) return;
  readScope.share(
    new SharedReadYourWrites(
      limiter.redis,
      `${redisPrefix}ryw:`,
      readYourWritesMs,
      (msg, err) => log.warn({ err: err instanceof Error ? { message: err.message } : undefined }, msg),
      // Refusing, not merely not connected: a connection not ready yet (the first requests after
      // a start) or lost is the store's own `status` check, and needs no window of catching up.
      () => !limiter.redisRefusing(),
    ),
  );
}

async function access(app: FastifyInstance, options: AccessOptions) {
  registerCallerResolution(app, options.apiKeys, options.tokens);
  shareReadYourWrites(app.log, options);
  app.addHook('onRequest', options.limiter.limit);
  registerAccessControl(app, options.apiKeys, options.limiter.chargeKey);
}

/** fastify-plugin: the request decorators and the hooks are every route's (REST and GraphQL alike). */
export const accessPlugin = fp(access, { name: 'access' });
