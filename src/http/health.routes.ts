import type { FastifyInstance } from 'fastify';
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
 * works and still limits, per process), or when a read replica is out (its reads go elsewhere). 503 `unavailable` means the database did not answer in time.
 * `checks` says which dependency is in which state.
 *
 * /readyz is not rate limited (a load balancer's probes must never be refused), so anyone may call it
 * as often as they like: checks that arrive while one is asking the database share its answer, and
 * one in flight for longer than `timeoutMs` (a database that hangs) is not joined but asked again.
 * The database sees one `SELECT 1` per process at a time, not one per request, whatever the flood.
 */
export async function healthRoutes(
  app: FastifyInstance,
  { db, rateLimitStore, timeoutMs }: HealthOptions,
): Promise<void> {
  // The check in flight, shared by the requests that arrive while it asks (see above).
  let shared: { answer: Promise<unknown>; startedAt: number } | null = null;
  const databaseAnswers = (): Promise<unknown> => {
    if (shared && Date.now() - shared.startedAt < timeoutMs) return shared.answer;
    const check = {
      // The primary (ready means writes can be served; replicas are reported below), on a connection
      // of its own: a pool busy serving requests does not hold the check back (db.ping).
      answer: db.ping(),
      startedAt: Date.now(),
    };
    shared = check;
    const done = () => {
      if (shared === check) shared = null;
    };
    check.answer.then(done, done);
    return check.answer;
  };
  app.get('/healthz', { logLevel: 'warn', config: { securityHeaders: 'api' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn', config: { securityHeaders: 'api' } }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    let database: 'ok' | 'unavailable' = 'ok';
    try {
      await Promise.race([
        databaseAnswers(),
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
    const replicas = db.pools?.().filter((p) => p.role === 'replica') ?? [];
    const out = replicas.filter((r) => !r.up);
    const checks = {
      database,
      rateLimit: store === 'memory-fallback' ? 'degraded: Redis unreachable, counting per process' : `ok (${store})`,
      // Reads of a replica that is out go to the others, or to the primary: degraded, still serving.
      ...(replicas.length > 0
        ? {
            replicas:
              out.length === 0
                ? `ok (${replicas.length})`
                : `degraded: ${out.length} of ${replicas.length} out: ${out.map((r) => `${r.name} (${r.reason})`).join('; ')}`,
          }
        : {}),
    };
    if (database !== 'ok') return reply.code(503).send({ status: 'unavailable', database: db.kind, checks });
    return { status: store === 'memory-fallback' || out.length > 0 ? 'degraded' : 'ok', database: db.kind, checks };
  });
}
