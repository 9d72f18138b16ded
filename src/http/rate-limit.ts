/**
 * The rate limit (@fastify/rate-limit): RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS for each
 * API key, or for each client address when anonymous (or when the credential is bad). Counters live
 * in memory (one process) unless REDIS_URL is set, when every process shares them through Redis.
 * Answers 429 RATE_LIMITED with Retry-After; every response carries the IETF draft RateLimit-Limit /
 * RateLimit-Remaining / RateLimit-Reset headers. Health checks are not limited.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import Redis from 'ioredis';
import type { Config } from '../config';
import { RateLimitedError } from '../errors/app-error';

export function rateLimitKey(request: FastifyRequest): string {
  return request.caller ? `key:${request.caller.keyId}` : `ip:${request.ip}`;
}

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  let redis: Redis | undefined;
  if (config.rateLimit.redisUrl) {
    redis = new Redis(config.rateLimit.redisUrl, {
      // Fail fast: a request waits at most this long for Redis; then the limit is skipped (below).
      connectTimeout: 2_000,
      commandTimeout: 1_000,
      maxRetriesPerRequest: 1,
    });
    redis.on('error', (err: Error) => app.log.warn({ err: { message: err.message } }, 'rate-limit Redis error'));
    app.addHook('onClose', async () => {
      await redis!.quit().catch(() => redis!.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    keyGenerator: rateLimitKey,
    redis,
    nameSpace: config.rateLimit.redisPrefix,
    // If Redis is unreachable, serve rather than fail every request (availability over the limit);
    // the error is logged above.
    skipOnError: true,
    enableDraftSpec: true,
    allowList: (request) => request.url === '/healthz' || request.url === '/readyz',
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError(`Rate limit of ${context.max} requests exceeded; retry in ${context.after}`),
  });
}
