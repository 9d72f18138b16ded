/**
 * The service's own per-request Apollo hooks as synchronous steps, run by ONE Apollo plugin.
 *
 * Why by hand: Apollo calls every hook of every plugin through `Promise.all` over the plugins'
 * listeners, and its hooks are async, so each plugin costs every request a promise for
 * `requestDidStart` and one per hook it defines, whether it has anything to do or not (ten no-op
 * plugins cost a `pet(id:)` read 8 % more instructions, measured with callgrind). The service's own
 * hooks never wait for anything but one (the cache's invalidation after a mutation): as steps, they
 * are plain calls, and Apollo sees one plugin. Apollo has no way to combine plugins; nor does any
 * library for it.
 *
 * The steps keep what Apollo promised them as separate plugins: every step's hook runs, in the
 * order of the steps, and when several refuse the operation (throw in `didResolveOperation`) the
 * first listed wins, as with `Promise.all` over listeners whose refusals are already made; a hook
 * that returns a promise (`willSendResponse` of the cache policy) is waited for with the others.
 */
import type { ApolloServerPlugin, GraphQLRequestContext, GraphQLRequestListener } from '@apollo/server';

/** The request context Apollo gives its listener's `hook`. */
type Context<C extends object, H extends Hook> = Parameters<NonNullable<GraphQLRequestListener<C>[H]>>[0];
type Hook = 'didResolveOperation' | 'didEncounterErrors' | 'willSendResponse';

/** What a step does for one request; each hook as Apollo's listener's, but synchronous. */
export interface RequestStepListener<C extends object> {
  didResolveOperation?(rc: Context<C, 'didResolveOperation'>): void;
  didEncounterErrors?(rc: Context<C, 'didEncounterErrors'>): void;
  /** May return a promise: waited for before the answer is sent. */
  willSendResponse?(rc: Context<C, 'willSendResponse'>): void | Promise<void>;
}

/** A step: called as each request starts; its listener (or nothing) for that request. */
export type RequestStep<C extends object> = (rc: GraphQLRequestContext<C>) => RequestStepListener<C> | void;

/**
 * Runs `hook` of every listener, in order. Nothing when none waits and none failed; otherwise a
 * promise, rejected with the first error once all have run. Never a synchronous throw: Apollo calls
 * every plugin's hook before it waits for any, and a throw would stop it before the plugins after
 * this one (the cost budget, tracing) had theirs, as a rejected promise from an async hook did not.
 */
function runAll<C extends object, H extends Hook>(
  listeners: RequestStepListener<C>[],
  hook: H,
  rc: Context<C, H>,
): Promise<void> | void {
  let failure: { error: unknown } | undefined;
  let waits: Promise<void>[] | undefined;
  for (const listener of listeners) {
    try {
      const result = (listener[hook] as ((rc: Context<C, H>) => void | Promise<void>) | undefined)?.(rc);
      if (result) (waits ??= []).push(result);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (waits) {
    return Promise.all(waits).then(() => {
      if (failure) throw failure.error;
    });
  }
  if (failure) return Promise.reject(failure.error);
}

/** One Apollo plugin running `steps`, in order. */
export function requestStepsPlugin<C extends object>(steps: readonly RequestStep<C>[]): ApolloServerPlugin<C> {
  // Apollo types every hook as returning a promise and awaits whatever they return; its pipeline
  // (patched, patches/README.md) awaits only a promise: so none is made where nothing waits.
  return {
    requestDidStart(rc: GraphQLRequestContext<C>) {
      const listeners: RequestStepListener<C>[] = [];
      try {
        for (const step of steps) {
          const listener = step(rc);
          if (listener) listeners.push(listener);
        }
      } catch (error) {
        // As a rejection, like runAll's: the plugins after this one still start.
        return Promise.reject(error);
      }
      if (listeners.length === 0) return undefined;
      const listener = {
        didResolveOperation: (r) => runAll(listeners, 'didResolveOperation', r),
        didEncounterErrors: (r) => runAll(listeners, 'didEncounterErrors', r),
        willSendResponse: (r) => runAll(listeners, 'willSendResponse', r),
      } as GraphQLRequestListener<C>;
      return listener;
    },
  } as unknown as ApolloServerPlugin<C>;
}
