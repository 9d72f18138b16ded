/**
 * The HTTP basics every request goes through, registered first of all (app.ts): the upgrade guard,
 * the read scope, the request id, span names, the request log, `Connection: close` while shutting
 * down, the error and not-found handlers, and the body types accepted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerErrorHandlers } from './errors';
import type { RequestReadScopes } from './read-scope';
import { registerRequestLog } from './request-log';
import { registerUpgradeGuard } from './upgrade-guard';
import { registerSpanRouteNames } from '../telemetry/http-tracing';

export interface HttpBasicsOptions {
  /** REQUEST_TIMEOUT_MS: how long the upgrade guard lets an upgrade wait for its answer. */
  requestTimeoutMs: number;
  /** Each request's read scope (read replicas: http/read-scope.ts); null without replicas. */
  readScope: RequestReadScopes | null;
  /** Tracing on (OTEL_*): the HTTP server span is named by the route pattern. */
  tracing: boolean;
}

/**
 * Shutting down (app.close(), main.ts): a request still in flight is answered, then its connection
 * closed, so that no keep-alive socket holds the process until keepAliveTimeout. (Node's
 * server.close() closes the sockets idle at that moment only; those busy then become idle later.)
 *
 * Once no request is in flight, every connection left is closed too, and so is one that arrives
 * then. Such a connection has not sent a whole request: half its headers (a slow or stalled client),
 * or nothing yet (in a cluster, a connection the primary hands to a worker as it drains: Node's
 * server.close() has already passed it by). It is not in flight, yet it held the process until
 * SHUTDOWN_TIMEOUT_MS, which exits 1. Counted on the server's own `request` event, not a Fastify
 * hook: a WebSocket upgrade is not a request here (subscriptions end on their own, subscriptions.ts).
 */
function closeConnectionsOnShutdown(app: FastifyInstance): void {
  let closing = false;
  let inFlight = 0;
  const closeTheRest = () => {
    if (closing && inFlight === 0) app.server.closeAllConnections();
  };
  app.server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    inFlight++;
    response.once('close', () => {
      inFlight--;
      closeTheRest();
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    app.server.on('connection', (socket: Socket) => {
      if (inFlight === 0) socket.destroy();
    });
    closeTheRest();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

async function httpBasics(app: FastifyInstance, { requestTimeoutMs, readScope, tracing }: HttpBasicsOptions) {
  // First of all hooks: a WebSocket upgrade refused by any later hook still closes its socket.
  registerUpgradeGuard(app, requestTimeoutMs);
  // Next: the request's read scope (read replicas: http/read-scope.ts).
  readScope?.register(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (tracing) registerSpanRouteNames(app);
  registerRequestLog(app);
  closeConnectionsOnShutdown(app);
  registerErrorHandlers(app);
  // Request bodies are JSON or nothing: a text/plain, form or multipart POST is 415
  // UNSUPPORTED_MEDIA_TYPE before anything runs. This is half of the CSRF rule (docs/clients.md):
  // a browser sends those types cross-site without a preflight; it cannot send JSON that way.
  app.removeContentTypeParser('text/plain');
}

/**
 * fastify-plugin (no encapsulation): these hooks, the error and not-found handlers (with the
 * `onRoute` hook that lists every route's methods for 405 answers) and the content types are the
 * whole app's, every route's and every refusal's, not a child context's.
 */
export const httpBasicsPlugin = fp(httpBasics, { name: 'http-basics' });
