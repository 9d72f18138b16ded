/**
 * Names the HTTP server span of instrumentation-http by the route pattern (`POST /graphql`,
 * `GET /pets/:petId`, with `http.route`) instead of the bare method: the instrumentation reads the
 * route from the RPC metadata of its context, which a framework fills in once it has routed.
 */
import { context } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';

export function registerSpanRouteNames(app: FastifyInstance): void {
  // Loaded only with tracing on (@opentelemetry/core comes with the SDK).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { getRPCMetadata, RPCType } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  app.addHook('onRequest', (request, _reply, done) => {
    const rpc = getRPCMetadata(context.active());
    if (rpc?.type === RPCType.HTTP && request.routeOptions.url) rpc.route = request.routeOptions.url;
    done();
  });
}
