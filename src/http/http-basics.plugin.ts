/**
 * The HTTP basics every request goes through, registered first of all (app.ts): the upgrade guard,
 * the read scope, the request id, span names, the request log, `Connection: close` while shutting
 * down, the error and not-found handlers, and the body types accepted.
 */
import { isAscii } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, BadRequestError, ErrorCode } from '../errors/app-error';
import { registerErrorHandlers } from './errors';
import type { RequestReadScopes } from './read-scope';
import { registerRequestLog } from './request-log';
import { registerUpgradeGuard } from './upgrade-guard';
import { registerSpanRouteNames } from '../telemetry/http-tracing';

export interface HttpBasicsOptions {
  /**
   * REQUEST_TIMEOUT_MS: how long the upgrade guard lets an upgrade wait for its answer, and how long
   * an answer may wait for its client to read any of it (`cutStalledReaders`).
   */
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

/**
 * A response's `timeout`: nothing of it was taken for the whole time allowed (cutStalledReaders). A
 * reset, not a close: a close would leave the kernel holding what is unsent, retrying a client that
 * reads nothing.
 */
function cutStalledReader(this: ServerResponse): void {
  (this.socket as Socket | null)?.resetAndDestroy();
}

/**
 * An answer the client does not read is cut: once it is sent, a connection on which nothing moves
 * for REQUEST_TIMEOUT_MS (the client reads none of what is waiting for it) is closed. Node's server
 * has no such bound (its timeouts are for receiving the request, and keep-alive starts once the
 * answer is written out): a client that read the first bytes of a large answer (a page, an error
 * quoting a large variable) and then nothing held its connection, the answer and a file descriptor
 * for as long as it liked, and the rate limit let one address open hundreds of those a minute. A
 * slow client is not cut: every chunk it takes starts the time again. Keep-alive then replaces this
 * bound with its own, and the next request on the connection starts without it.
 */
function cutStalledReaders(app: FastifyInstance, requestTimeoutMs: number): void {
  if (requestTimeoutMs <= 0) return;
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A connection's answer only: an in-process request (`inject`: tests, the admin socket) has no
    // socket to cut, and its response would keep the timer for nothing.
    if (reply.raw.socket instanceof Socket) reply.raw.setTimeout(requestTimeoutMs, cutStalledReader);
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
  cutStalledReaders(app, requestTimeoutMs);
  registerErrorHandlers(app);
  // Request bodies are JSON or nothing: a text/plain, form or multipart POST is 415
  // UNSUPPORTED_MEDIA_TYPE before anything runs. This is half of the CSRF rule (docs/clients.md):
  // a browser sends those types cross-site without a preflight; it cannot send JSON that way.
  app.removeContentTypeParser('text/plain');
  utf8JsonBodies(app);
  utf8QueryStrings(app);
}

/**
 * A query string is UTF-8, percent-encoded, as a JSON body is UTF-8: the query parser read a byte
 * that is not (`%FF`, a Latin-1 `%E9`) as U+FFFD and a malformed escape (`%ZZ`) as itself, so a GET
 * query's `nameContains: "Caf%E9"` searched for "Caf\uFFFD" with 200. Now 400 BAD_REQUEST, as a path
 * that does not decode already is, before anything else reads the query.
 */
function utf8QueryStrings(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const start = request.url.indexOf('?');
    if (start === -1 || !request.url.includes('%', start)) return done();
    try {
      decodeURIComponent(request.url.slice(start + 1));
    } catch {
      return done(new BadRequestError('The query string is not valid UTF-8 (a malformed percent-encoding?)'));
    }
    done();
  });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii']);
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * JSON bodies are UTF-8 (RFC 8259; GraphQL over HTTP: "encoded with UTF-8"). Fastify decoded any
 * body as UTF-8, replacing each byte that is not with U+FFFD and ignoring the charset the request
 * named: a name sent in Latin-1 was stored as "Caf\uFFFD", with 200. Now a body that is not UTF-8
 * is 400 BAD_REQUEST, and one that names another charset and is not plain ASCII 415
 * UNSUPPORTED_MEDIA_TYPE, before anything runs; the JSON is then parsed as Fastify parses it (its
 * own parser, the same prototype-poisoning checks).
 */
function utf8JsonBodies(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    // Plain ASCII reads the same in every charset a client names for JSON (a legacy client's
    // `charset=ISO-8859-1` over ASCII bytes was, and is, served); other bytes would read otherwise.
    if (charset !== undefined && !UTF8_NAMES.has(charset) && !isAscii(body as Buffer)) {
      const message =
        `Unsupported Media Type: charset "${charset}" is not accepted; ` +
        'send the body as JSON in UTF-8 ("Content-Type: application/json")';
      done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 415, message), undefined);
      return;
    }
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(new BadRequestError('The request body is not valid UTF-8'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

/**
 * fastify-plugin (no encapsulation): these hooks, the error and not-found handlers (with the
 * `onRoute` hook that lists every route's methods for 405 answers) and the content types are the
 * whole app's, every route's and every refusal's, not a child context's.
 */
export const httpBasicsPlugin = fp(httpBasics, { name: 'http-basics' });
