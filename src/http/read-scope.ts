/**
 * Each request's read scope (src/db/read-routing.ts): who is calling, for read-your-writes, and
 * whether its reads must come from the primary. Registered only when the database has replicas.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { runInReadScope, type ReadScope, type SharedReadYourWrites } from '../db/read-routing';
import { callerIdentity } from '../modules/auth/caller';

/** The caller a read-your-writes window belongs to: the API key, or the client address when anonymous. */
function callerOf(request: FastifyRequest): string {
  return request.caller ? callerIdentity(request.caller) : `addr:${request.ip}`;
}

/**
 * Runs every request (its later hooks, handler and everything they start) inside a read scope, the
 * way @fastify/request-context does (AsyncLocalStorage.run around `done`); the reader finds it without
 * any call site passing it. A request that wrote (a GraphQL mutation: graphql/read-routing.plugin.ts)
 * starts its caller's window when it writes and again when it is answered. With `shared` (REDIS_URL),
 * the window is every process's: recorded in Redis before the answer leaves, and looked up once the
 * caller is known (preHandler, after the credential), so the caller's reads on any process go to the
 * primary while it is open, or while Redis cannot say.
 */
export interface RequestReadScopes {
  /** Adds the hooks (http-basics.plugin.ts: right after the upgrade guard, before every other hook). */
  register(app: FastifyInstance): void;
  /** Shares the windows through Redis, once the rate limit's connection exists (access.plugin.ts). */
  share(through: SharedReadYourWrites): void;
}

export function requestReadScopes(noteWrite: (caller: string) => void): RequestReadScopes {
  // Set once the rate limit's Redis connection exists (access.plugin.ts); the hooks are registered first.
  let shared: SharedReadYourWrites | null = null;
  const scopes = new WeakMap<FastifyRequest, ReadScope>();
  const recordWrite = async (request: FastifyRequest) => {
    const caller = callerOf(request);
    noteWrite(caller);
    await shared?.wrote(caller);
  };
  const register = (app: FastifyInstance) => {
    app.addHook('onRequest', (request, _reply, done) => {
      const scope: ReadScope = {
        primary: false,
        caller: () => callerOf(request),
        onWrite: () => recordWrite(request),
      };
      scopes.set(request, scope);
      runInReadScope(scope, done);
    });
    app.addHook('preHandler', async (request) => {
      const scope = scopes.get(request);
      if (shared && scope && !scope.primary && (await shared.pinned(callerOf(request)))) scope.primary = true;
    });
    // Before the answer is sent: the window runs from the answer, and holds on every process by then.
    app.addHook('onSend', async (request, _reply, payload) => {
      if (scopes.get(request)?.wrote) await recordWrite(request);
      return payload;
    });
  };
  return { register, share: (through) => void (shared = through) };
}
