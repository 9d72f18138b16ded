/**
 * Every WebSocket upgrade that is not completed closes its socket: refused by a hook (401, 403, 429,
 * a REST scope), answered by an error handler, never answered at all, or cut by shutdown.
 *
 * Why this is needed (issue 23, item 1): Node hands a request with `Upgrade:` to the server's
 * `upgrade` listeners with the raw socket, detached from the HTTP parser; from then on nothing in
 * Node closes it. @fastify/websocket routes it through Fastify with a `ServerResponse` attached to
 * that socket, and closes the socket only in its own `onResponse` hook, when its own `onRequest` hook
 * has marked the request as an upgrade. Its hooks come after the app's: a rate-limit or credential
 * hook that refuses the request stops the chain before that mark, the answer is written, and the
 * socket stays open forever (CLOSE_WAIT once the client hangs up; the HTTP server keeps half-open
 * sockets). So the guard does not depend on which hook ran:
 *
 * - the first `onRequest` hook of the app (registered before any other) sees every upgrade request
 *   and closes its socket once an HTTP answer has been written (`finish`): an answered upgrade
 *   request was by definition refused, since a completed upgrade writes its 101 on the socket itself
 *   (the reply is hijacked) and never finishes the `ServerResponse`;
 * - a watchdog on the server's `upgrade` event destroys a socket that neither completed its upgrade
 *   (the `ws` server's `connection` event) nor was answered within the request timeout (a hook that
 *   hangs, a route that throws outside Fastify), and every pending one when the app closes.
 */
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Pending upgrade sockets are destroyed after this long when REQUEST_TIMEOUT_MS is 0 (no limit). */
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 60_000;

/**
 * Installs the guard: call it before any other `onRequest` hook is added (http-basics.plugin.ts does
 * it first thing, and app.ts registers that plugin first); the watchdog attaches itself when the app is ready (after @fastify/websocket registered).
 */
export function registerUpgradeGuard(app: FastifyInstance, requestTimeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    // `upgrade` is true only for requests Node emitted as 'upgrade' (Connection: Upgrade + Upgrade).
    if ((request.raw as { upgrade?: boolean }).upgrade) {
      const socket = request.raw.socket;
      // The client learns the socket will close, instead of waiting to reuse it.
      reply.header('connection', 'close');
      // destroySoon: end (send our FIN) once the answer is flushed, then release the socket.
      reply.raw.once('finish', () => socket.destroySoon());
    }
    done();
  });

  /** Sockets handed over for an upgrade and not yet upgraded nor closed, with their release. */
  const pending = new Map<Socket, () => void>();
  const timeoutMs = requestTimeoutMs > 0 ? requestTimeoutMs : DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const watch = (_request: IncomingMessage, socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    timer.unref();
    const release = () => {
      clearTimeout(timer);
      pending.delete(socket);
    };
    pending.set(socket, release);
    socket.once('close', release);
  };
  const upgraded = (_ws: unknown, request: IncomingMessage) => pending.get(request.socket)?.();
  app.addHook('onReady', async () => {
    app.server.on('upgrade', watch);
    if (app.hasDecorator('websocketServer')) app.websocketServer.on('connection', upgraded);
  });
  app.addHook('onClose', async () => {
    app.server.off('upgrade', watch);
    for (const socket of [...pending.keys()]) socket.destroy();
  });
}
