/**
 * Batched requests (a JSON array of operations, as Apollo Client's BatchHttpLink sends them): at most
 * GRAPHQL_BATCH_MAX operations (10 by default, BatchHttpLink's own default `batchMax`), and every
 * operation counts against the rate limit, so a batch of ten costs what ten requests cost. Apollo
 * runs each operation through the whole pipeline, so the access check and the cost and shape limits
 * apply to each on its own.
 *
 * The rate limiter (@fastify/rate-limit, registered in http/rate-limit.ts) has counted the request
 * once on arrival, before the body was read; this preHandler counts the other operations in the same
 * store under the same key. A batch over the limit is refused as a whole (429) before anything runs.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { BadRequestError, RateLimitedError } from '../errors/app-error';

export function batchGuard(app: FastifyInstance, batchMax: number): preHandlerAsyncHookHandler {
  const count = app.hasDecorator('createRateLimit') ? app.createRateLimit() : null;
  return async function guardBatch(request: FastifyRequest, reply: FastifyReply) {
    const body = request.body;
    if (!Array.isArray(body)) return;
    if (batchMax <= 1) throw new BadRequestError('Operation batching is not supported: send one operation per request');
    if (body.length === 0) throw new BadRequestError('A batch must hold at least one operation');
    if (body.length > batchMax) {
      throw new BadRequestError(
        `A batch holds at most ${batchMax} operations (GRAPHQL_BATCH_MAX); this one holds ${body.length}`,
      );
    }
    if (!count) return;
    for (let i = 1; i < body.length; i++) {
      const result = await count(request);
      if (result.isAllowed) return;
      reply.header('ratelimit-remaining', result.remaining);
      if (result.isExceeded) {
        reply.header('retry-after', result.ttlInSeconds);
        throw new RateLimitedError(
          `Rate limit of ${result.max} requests exceeded (a batch counts each of its ${body.length} operations); retry in ${result.ttlInSeconds} seconds`,
        );
      }
    }
  };
}
