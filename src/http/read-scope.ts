/**
 * Each request's read scope (src/db/read-routing.ts): who is calling, for read-your-writes, and
 * whether its reads must come from the primary. Registered only when the database has replicas.
 */
import { callerIdentity } from '../modules/auth/caller';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { runInReadScope, type ReadScope } from '../db/read-routing';

/** The caller a read-your-writes window belongs to: the API key, or the client address when anonymous. */
function callerOf(request: FastifyRequest): string {
  return request.caller ? callerIdentity(request.caller, '') : `addr:${request.ip}`;
}

/**
 * Runs every request (its later hooks, handler and everything they start) inside a read scope, the
 * way @fastify/request-context does (AsyncLocalStorage.run around `done`); the reader finds it without
 * any call site passing it. A request that wrote (a GraphQL mutation: graphql/read-routing.plugin.ts)
 * starts its caller's window when it writes and again when it is answered.
 */
export function registerReadScope(app: FastifyInstance, noteWrite: (caller: string) => void): void {
  const scopes = new WeakMap<FastifyRequest, ReadScope>();
  app.addHook('onRequest', (request, _reply, done) => {
    const scope: ReadScope = {
      primary: false,
      caller: () => callerOf(request),
      onWrite: () => noteWrite(callerOf(request)),
    };
    scopes.set(request, scope);
    runInReadScope(scope, done);
  });
  app.addHook('onResponse', async (request) => {
    if (scopes.get(request)?.wrote) noteWrite(callerOf(request));
  });
}
