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
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { rateLimitKey, type RateLimiter } from '../http/rate-limit';
import { BadRequestError, RateLimitedError } from '../errors/app-error';

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
const given = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * What Apollo refuses in one operation of a POST body before running it (runHttpQuery), as it words
 * it; null when its shape is fine. Apollo makes these checks as it starts each operation of a batch,
 * all at once: one malformed operation answered the whole batch 400 while the others ran anyway (a
 * mutation done, its answer lost, and charged to the cost budget). So a batch is checked here first.
 */
function shapeProblem(piece: unknown): string | null {
  if (!isObject(piece) || Object.keys(piece as object).length === 0) {
    return 'POST body missing, invalid Content-Type, or JSON object has no keys.';
  }
  const { query, variables, extensions, operationName } = piece as Record<string, unknown>;
  if (Boolean(query) && typeof query !== 'string') return 'GraphQL queries must be strings.';
  if (given(variables) && !isObject(variables)) return '`variables` in a POST body must be an object if provided.';
  if (given(extensions) && !isObject(extensions)) return '`extensions` in a POST body must be an object if provided.';
  if (given(operationName) && typeof operationName !== 'string') {
    return '`operationName` in a POST body must be a string if provided.';
  }
  return null;
}

export function batchGuard(batchMax: number, limiter: Pick<RateLimiter, 'charge'> | null): preHandlerAsyncHookHandler {
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
    for (const [i, piece] of body.entries()) {
      const problem = shapeProblem(piece);
      if (problem) throw new BadRequestError(`Operation ${i + 1} of the batch: ${problem} Nothing was run`);
    }
    if (!limiter || body.length < 2) return;
    // The request itself was counted by the rate limit's hook; its other operations are charged to
    // the same payer (its key, or its address), through the one limiter HTTP and WebSocket share.
    const result = await limiter.charge(rateLimitKey(request), body.length - 1);
    reply.header('ratelimit-remaining', result.remaining);
    if (!result.allowed) {
      reply.header('retry-after', result.resetSeconds);
      throw new RateLimitedError(
        `Rate limit of ${result.limit} requests exceeded (a batch counts each of its ${body.length} operations); retry in ${result.resetSeconds} seconds`,
      );
    }
  };
}
