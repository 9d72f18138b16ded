import type { FastifyInstance } from 'fastify';
import { Prisma } from '../generated/prisma/client';
import type { Database } from '../db/database';
import type { RateLimitStoreState } from './rate-limit';

export interface HealthOptions {
  db: Database;
  /** Where the rate-limit counters are right now (http/rate-limit.ts). */
  rateLimitStore: () => RateLimitStoreState;
  /** How long /readyz waits for the database before answering 503. */
  timeoutMs: number;
}

/**
 * Liveness (the process answers) and readiness (the database answers, within `timeoutMs`).
 *
 * /readyz answers 200 while the database answers, whatever else is away: `status` is then `ok`, or
 * `degraded` when the rate limit counts in memory because Redis is unreachable (the service still
 * works and still limits, per process). 503 `unavailable` means the database did not answer in time.
 * `checks` says which dependency is in which state.
 */
export async function healthRoutes(
  app: FastifyInstance,
  { db, rateLimitStore, timeoutMs }: HealthOptions,
): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    let database: 'ok' | 'unavailable' = 'ok';
    try {
      await Promise.race([
        db.sql.query(Prisma.sql`SELECT 1`),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (error) {
      database = 'unavailable';
      request.log.warn({ err: { message: (error as Error).message } }, 'readiness check failed: database');
    } finally {
      clearTimeout(timer);
    }
    const store = rateLimitStore();
    const checks = {
      database,
      rateLimit: store === 'memory-fallback' ? 'degraded: Redis unreachable, counting per process' : `ok (${store})`,
    };
    if (database !== 'ok') return reply.code(503).send({ status: 'unavailable', database: db.kind, checks });
    return { status: store === 'memory-fallback' ? 'degraded' : 'ok', database: db.kind, checks };
  });
}
