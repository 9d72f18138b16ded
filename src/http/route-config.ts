/**
 * What REST routes declare besides their handler: the operation (a key of SCOPE_TABLE, read by the
 * auth hook to enforce its scope) in `config`, and OpenAPI extensions (`x-stability`, ...) in
 * `schema`, which @fastify/swagger copies onto the operation.
 */
import type { Operation } from '../common/scopes';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The key of this route in SCOPE_TABLE (src/common/scopes.ts). */
    operation?: Operation;
  }
  interface FastifySchema {
    [extension: `x-${string}`]: unknown;
  }
}
