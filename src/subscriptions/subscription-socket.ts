/**
 * One graphql-ws connection on one upgraded socket: graphql-ws's protocol server (`makeServer`)
 * wired to a `ws` socket with the bounds a public endpoint needs. Written here instead of using
 * graphql-ws's own @fastify/websocket adapter, which has none of them (issue 23):
 *
 * - every frame sent (graphql-ws's messages, `pong` answers to `ping` included, and keep-alive
 *   pings) first checks the bytes already waiting for the client (`ws`'s `bufferedAmount`: its own
 *   queue plus the socket's). Past SUBSCRIPTION_MAX_BUFFERED_BYTES the client is not reading: the
 *   connection is closed with 1013 and cut shortly after, so it never costs more than that bound;
 * - a connection the server closes (1008, 1013, graphql-ws's 44xx) is cut CLOSE_GRACE_MS after the
 *   close frame at the latest, and after 1008 it is read no more, so a flood cannot outlive its close;
 * - every message received is charged to the caller's rate-limit budget (the key once
 *   `connection_init` named one, the client's address before and without), the budget HTTP
 *   requests spend: over it, the connection is closed with 1008 and the refusal's text. Messages are
 *   handled one at a time; while one waits for its charge the socket stops reading, so a flood is
 *   held back by TCP, not queued here;
 * - a failed send (the peer went away) is not an error, and an unexpected failure is logged once per
 *   connection as a JSON line, never a stack per message.
 */
import type { FastifyBaseLogger } from 'fastify';
import { CloseCode, MessageType, type makeServer } from 'graphql-ws';
import type { WebSocket } from 'ws';

/** RFC 6455: "try again later" (the client reads too slowly) and "policy violation" (rate limit). */
export const TRY_AGAIN_LATER = 1013;
export const POLICY_VIOLATION = 1008;
/** graphql-ws's code for an internal error. */
const INTERNAL_ERROR = 4500;
/** The longest close reason a close frame carries (RFC 6455: 125 bytes of payload, 2 of them the code). */
const CLOSE_REASON_MAX_BYTES = 123;

/**
 * `text` cut to what a close frame carries: 123 bytes of UTF-8, whole characters only. `ws` throws
 * on a longer reason, and a reason that quotes what a client sent (a token's issuer) may hold
 * characters of several bytes, so cutting it to 123 characters is not enough.
 */
export function closeReason(text: string): string {
  const bytes = new Uint8Array(CLOSE_REASON_MAX_BYTES);
  const { written } = new TextEncoder().encodeInto(text, bytes);
  return Buffer.from(bytes.subarray(0, written)).toString('utf8');
}

/** How long a connection the server closed may take to complete the close before its socket is cut. */
const CLOSE_GRACE_MS = 2_000;
/** Messages read ahead of the one being charged before the socket stops reading. */
const READ_AHEAD = 16;

type GraphqlWsServer<E> = ReturnType<typeof makeServer<Record<string, unknown> | undefined, E>>;

export interface SocketBounds {
  /** Interval of WebSocket pings; a peer that does not answer within one more is dropped. 0: off. */
  keepAliveMs: number;
  maxBufferedBytes: number;
  /** Charges one message to the connection's payer: null when within budget, else the refusal's text. */
  charge(): Promise<string | null>;
  /**
   * The server is shutting down: the subscriptions it ends are not over for the client, so their
   * `complete` is not sent. The close that follows (1001) makes a graphql-ws client reconnect and
   * subscribe again, to another process; a `complete` would end each subscription for good.
   */
  goingAway(): boolean;
  log: FastifyBaseLogger;
}

/** The `type` of a graphql-ws message (parsed only when it matters: going away, or a failure). */
function messageType(data: string): unknown {
  try {
    return (JSON.parse(data) as { type?: unknown }).type;
  } catch {
    return undefined;
  }
}

/** The messages only a server sends: graphql-ws's server throws on one received from a client. */
const SERVER_MESSAGES: ReadonlySet<unknown> = new Set([MessageType.ConnectionAck, MessageType.Next, MessageType.Error]);

/**
 * Whether graphql-ws failed on `message` because of what the client sent: a well-formed message only
 * a server sends (it throws on one), or a `ping` whose payload nests too deep to be echoed in its
 * `pong` (JSON.stringify overflows the stack; echoing it is all a ping does).
 */
function clientsMistake(message: string): boolean {
  const type = messageType(message);
  return type === MessageType.Ping || SERVER_MESSAGES.has(type);
}

/** What the reading side of a connection does with each message (serveGraphqlWs). */
interface Reader {
  /** Charges one message: null when within budget, else the refusal's text. */
  charge(): Promise<string | null>;
  /** Hands a charged message to graphql-ws (not awaited: a subscribe resolves when it ends). */
  handle(message: string): Promise<void> | undefined;
  /** Over the budget: the connection is closed (1008) with the refusal. */
  refuse(refusal: string): void;
  fail(error: unknown, what: string): void;
}

/**
 * Reads messages one at a time, each charged before graphql-ws sees it; while one waits for its
 * charge up to READ_AHEAD more are read, then the socket stops reading (TCP holds a flood back).
 * Returns the queue, emptied when the socket closes.
 */
function readCharged(socket: WebSocket, reader: Reader): string[] {
  const inbox: string[] = [];
  let draining = false;
  const drain = async () => {
    if (draining) return;
    draining = true;
    while (inbox.length > 0 && socket.readyState === socket.OPEN) {
      const message = inbox.shift()!;
      const refusal = await reader.charge().catch((error: unknown) => {
        reader.fail(error, 'rate-limit charge failed');
        return 'error';
      });
      if (socket.readyState !== socket.OPEN) break;
      if (refusal) {
        reader.refuse(refusal);
        break;
      }
      // Not awaited: a subscribe resolves only when its subscription ends.
      reader.handle(message)?.catch((error: unknown) => reader.fail(error, 'message handling failed'));
    }
    inbox.length = 0;
    draining = false;
    // A socket closed for flooding stays paused until it is cut: see closeAndCut.
    if (socket.isPaused && socket.readyState === socket.OPEN) socket.resume();
  };
  socket.on('message', (data) => {
    if (socket.readyState !== socket.OPEN) return; // read before the pause took hold: dropped
    inbox.push(String(data));
    if (inbox.length >= READ_AHEAD && !socket.isPaused) socket.pause();
    void drain();
  });
  return inbox;
}

/**
 * Keep-alive pings every `keepAliveMs` (0: none), skipped while the client is not reading
 * (`overflowing` closes it instead); a peer that does not answer within one more interval is cut.
 * Returns the stop, for when the socket closes.
 */
function keepAlive(socket: WebSocket, keepAliveMs: number, overflowing: () => boolean): () => void {
  let pongWait: NodeJS.Timeout | null = null;
  const timer =
    keepAliveMs > 0
      ? setInterval(() => {
          if (socket.readyState !== socket.OPEN || overflowing()) return;
          pongWait ??= setTimeout(() => socket.terminate(), keepAliveMs);
          socket.ping();
        }, keepAliveMs)
      : null;
  socket.on('pong', () => {
    if (pongWait) clearTimeout(pongWait);
    pongWait = null;
  });
  return () => {
    if (timer) clearInterval(timer);
    if (pongWait) clearTimeout(pongWait);
  };
}

/**
 * Serves graphql-ws on `socket` until it closes; `extra` is what graphql-ws hands its callbacks.
 * Returns how the server closes this connection (`closeAndCut`): every close it decides goes through
 * it, so that each is cut CLOSE_GRACE_MS after its close frame, never `ws`'s 30 s.
 */
export function serveGraphqlWs<E>(
  server: GraphqlWsServer<E>,
  socket: WebSocket,
  extra: E,
  bounds: SocketBounds,
): (code: number, reason: string) => void {
  const { log } = bounds;
  let failed = false;
  /** The connection fails once: logged once, closed once. */
  const fail = (error: unknown, what: string) => {
    if (failed) return;
    failed = true;
    log.error({ err: error }, `graphql-ws: ${what}`);
    closeAndCut(INTERNAL_ERROR, 'Internal server error');
  };

  let cutTimer: NodeJS.Timeout | undefined;
  /**
   * Every close the server decides (a policy or slow-consumer close, graphql-ws's own 44xx): the close
   * frame goes out and the socket is cut CLOSE_GRACE_MS later unless the client has completed the
   * close by then, instead of `ws`'s 30 s. After a rate-limit close the socket is also read no more: a
   * client flooding frames past its close would otherwise be parsed all that time (issue 28 item 6:
   * one such client held a core for 15 s). A client that reads still gets the close frame and its code.
   */
  const closeAndCut = (code: number, reason: string) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.close(code, closeReason(reason));
    if (code === POLICY_VIOLATION) socket.pause();
    cutTimer ??= setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
  };
  /** Over the byte bound: close (1013), and cut the socket if the close frame cannot get through. */
  const overflowing = (): boolean => {
    if (socket.bufferedAmount <= bounds.maxBufferedBytes) return false;
    if (socket.readyState === socket.OPEN) {
      log.warn({ bufferedBytes: socket.bufferedAmount }, 'WebSocket client not reading: closed (1013)');
      closeAndCut(TRY_AGAIN_LATER, `Slow consumer: more than ${bounds.maxBufferedBytes} bytes waiting; reconnect`);
    }
    return true;
  };

  let handle: ((data: string) => Promise<void>) | null = null;
  const closed = server.opened(
    {
      protocol: socket.protocol,
      // Resolves once written, or at once when dropped: a closed peer is no error to report.
      send: (data) =>
        new Promise<void>((resolve) => {
          if (socket.readyState !== socket.OPEN || overflowing()) return resolve();
          if (bounds.goingAway() && messageType(data) === MessageType.Complete) return resolve();
          socket.send(data, () => resolve());
        }),
      close: (code, reason) => closeAndCut(code ?? 1000, reason ?? ''),
      onMessage: (cb) => (handle = cb),
    },
    extra,
  );

  // Received messages, each charged before graphql-ws sees it.
  const inbox = readCharged(socket, {
    charge: bounds.charge,
    // A client's mistake is closed as its other invalid messages are (4400), not as an internal
    // error (4500) logged with its stack, which any client could repeat at will.
    handle: (message) =>
      handle?.(message).catch((error: unknown) => {
        if (!clientsMistake(message)) throw error;
        closeAndCut(CloseCode.BadRequest, 'Invalid message received');
      }),
    refuse: (refusal) => closeAndCut(POLICY_VIOLATION, refusal),
    fail,
  });
  const stopKeepAlive = keepAlive(socket, bounds.keepAliveMs, overflowing);
  // An error on an open socket (a malformed frame, a reset): one line, then the socket goes.
  socket.on('error', (error) => {
    log.warn({ err: { message: error.message, code: (error as { code?: string }).code } }, 'WebSocket error');
    socket.terminate();
  });
  socket.once('close', (code, reason) => {
    stopKeepAlive();
    if (cutTimer) clearTimeout(cutTimer);
    inbox.length = 0;
    closed(code, String(reason)).catch((error: unknown) => fail(error, 'close handling failed'));
  });
  return closeAndCut;
}
