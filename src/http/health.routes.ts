import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database';

/** Liveness (the process answers) and readiness (the database answers). */
export async function healthRoutes(app: FastifyInstance, { db }: { db: Database }): Promise<void> {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      await db.prisma.$queryRaw`SELECT 1`;
      return { status: 'ok', database: db.kind };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable', database: db.kind });
    }
  });
}
