/**
 * PostgreSQL LISTEN, in both database modes: a process subscribes to a channel and hears every
 * `NOTIFY` (or `pg_notify(channel, payload)`) sent on it, by any process, when the sending
 * transaction commits (a rolled-back transaction notifies nobody).
 *
 * - postgres: one dedicated `pg.Client` per process for every channel (PostgresListener), outside
 *   the pool (a pooled connection is shared and recycled, and a LISTEN belongs to the session that
 *   ran it). If that connection fails or ends, notifications
 *   sent meanwhile are lost for good, so the subscriber is told (`onState(false)`) and the client
 *   reconnects with backoff until it LISTENs again (`onState(true)`) or the subscription is stopped.
 * - pglite: the embedded engine's own `listen`; it lives in this process and cannot be lost.
 */
import type { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';

/** What a subscriber to a channel hears. */
export interface ListenHandlers {
  /** A notification's payload (`''` when it was sent without one). */
  onNotify(payload: string): void;
  /**
   * `true` once the channel is being listened to; `false` (with the cause) when that stopped, or
   * when an attempt to start it failed. While it is false, notifications are being missed.
   */
  onState(listening: boolean, error?: Error): void;
}

/** Stops listening; resolves once the connection (if any) is closed. */
export type Unlisten = () => Promise<void>;

export interface PostgresListenOptions {
  /** First reconnection delay; it doubles on each failed attempt up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Idle time before TCP keepalive probes start, so a connection whose peer vanished without a
   * FIN or RST (a dead host, a dropped NAT entry) is noticed instead of waiting forever.
   */
  keepAliveInitialDelayMs?: number;
  /**
   * How often the connection is asked `SELECT 1`, and how long it may take to answer (also the
   * longest wait to connect). TCP keepalive alone takes minutes to give up on a peer that vanished
   * (Linux: 9 probes 75 s apart after the idle time), while a connection that is not heard is not
   * idle for the kernel's keepalive when it still has unacknowledged data to send; an answer that
   * does not come in time ends the connection, which is then replaced as if it had failed.
   */
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
}

/**
 * LISTEN over one dedicated connection to `url` for every channel of the process (the API-key cache's
 * and the store events'): a process holds one LISTEN connection, not one per channel. The connection
 * opens with the first `listen` and closes when the last one stops.
 */
export class PostgresListener {
  readonly #channels = new Map<string, Set<ListenHandlers>>();
  #client: Client | null = null;
  #listening = false;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;
  #failures = 0;
  #connecting: Promise<void> | null = null;
  /** A reconnection is scheduled: new channels wait for it (it LISTENs on every channel). */
  #retrying = false;
  /** The heartbeat of the open connection. */
  #beat: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly options: PostgresListenOptions = {},
  ) {}

  /**
   * Listens on `channel`. Resolves after the first attempt to connect (or to LISTEN on the open
   * connection), whether it succeeded (`onState(true)` was called) or not (it keeps retrying).
   */
  async listen(channel: string, handlers: ListenHandlers): Promise<Unlisten> {
    this.#stopped = false;
    let set = this.#channels.get(channel);
    const fresh = !set;
    if (!set) this.#channels.set(channel, (set = new Set()));
    set.add(handlers);
    if (this.#listening && this.#client) {
      if (fresh) {
        try {
          await this.#client.query(`LISTEN ${this.#client.escapeIdentifier(channel)}`);
        } catch {
          // The connection is failing: its error handler reconnects and LISTENs on every channel.
        }
      }
      if (this.#listening) handlers.onState(true);
    } else if (!this.#retrying) {
      await (this.#connecting ??= this.#connect());
    }
    return async () => {
      const current = this.#channels.get(channel);
      if (!current?.delete(handlers)) return;
      if (this.#listening) handlers.onState(false);
      if (current.size > 0) return;
      this.#channels.delete(channel);
      if (this.#channels.size === 0) await this.#stop();
      // Not waited for: the channel has no handler left, so a notification before it takes effect
      // goes nowhere, and a connection that stopped answering would hold the caller (a shutdown)
      // until the heartbeat gives up on it.
      else void this.#client?.query(`UNLISTEN ${this.#client.escapeIdentifier(channel)}`).catch(() => undefined);
    };
  }

  #each(fn: (h: ListenHandlers) => void): void {
    for (const set of this.#channels.values()) for (const h of set) fn(h);
  }

  async #connect(): Promise<void> {
    const {
      minBackoffMs = 200,
      maxBackoffMs = 10_000,
      keepAliveInitialDelayMs = 10_000,
      heartbeatMs = 5_000,
      heartbeatTimeoutMs = 5_000,
    } = this.options;
    const c = new Client({
      connectionString: this.url,
      keepAlive: true,
      keepAliveInitialDelayMillis: keepAliveInitialDelayMs,
      connectionTimeoutMillis: heartbeatTimeoutMs,
      // How an operator (and a test) finds it in pg_stat_activity: its `query` column shows the
      // heartbeat's `SELECT 1` more often than the LISTEN. A URL's own application_name wins.
      application_name: LISTEN_APPLICATION_NAME,
    });
    this.#client = c;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      clearInterval(this.#beat);
      if (this.#client === c) this.#client = null;
      c.end().catch(() => undefined);
      if (this.#stopped) return;
      this.#listening = false;
      this.#each((h) => h.onState(false, error));
      // Backoff with jitter, so that many processes losing one server do not reconnect in step.
      const delay = Math.min(maxBackoffMs, minBackoffMs * 2 ** this.#failures++) * (0.5 + Math.random() / 2);
      this.#retrying = true;
      this.#retry = setTimeout(() => {
        this.#retrying = false;
        void (this.#connecting = this.#connect());
      }, delay);
      this.#retry.unref();
    };
    c.on('error', fail);
    c.on('end', () => fail(new Error('the LISTEN connection ended')));
    c.on('notification', (message) => {
      for (const h of this.#channels.get(message.channel) ?? []) h.onNotify(message.payload ?? '');
    });
    try {
      await c.connect();
      for (const channel of this.#channels.keys()) await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
      return;
    } finally {
      this.#connecting = null;
    }
    if (failed || this.#stopped) return;
    this.#failures = 0;
    this.#listening = true;
    this.#beat = this.#heartbeat(c, heartbeatMs, heartbeatTimeoutMs, fail);
    this.#each((h) => h.onState(true));
  }

  /** Asks `c` to answer every `everyMs`; one that does not within `timeoutMs` is failed. */
  #heartbeat(c: Client, everyMs: number, timeoutMs: number, fail: (error: Error) => void): NodeJS.Timeout {
    let asking = false;
    const beat = setInterval(() => {
      if (asking) return;
      asking = true;
      const timer = setTimeout(
        () => fail(new Error(`the LISTEN connection did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      timer.unref();
      c.query('SELECT 1').then(
        () => {
          asking = false;
          clearTimeout(timer);
        },
        (error: unknown) => {
          clearTimeout(timer);
          fail(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }, everyMs);
    beat.unref();
    return beat;
  }

  async #stop(): Promise<void> {
    this.#stopped = true;
    this.#retrying = false;
    clearTimeout(this.#retry);
    clearInterval(this.#beat);
    const c = this.#client;
    this.#client = null;
    this.#listening = false;
    await c?.end().catch(() => undefined);
  }
}

/** The LISTEN connection's `application_name` (pg_stat_activity). */
export const LISTEN_APPLICATION_NAME = 'petstore-listen';

/**
 * Listens on `channel` over a dedicated connection to `url` (one connection for this channel alone;
 * `Database.listen` shares one PostgresListener between channels instead).
 */
export async function listenPostgres(
  url: string,
  channel: string,
  handlers: ListenHandlers,
  options: PostgresListenOptions = {},
): Promise<Unlisten> {
  return new PostgresListener(url, options).listen(channel, handlers);
}

/** Listens on `channel` of the embedded engine (notifications of this process's own commits). */
export async function listenPglite(pglite: PGlite, channel: string, handlers: ListenHandlers): Promise<Unlisten> {
  let unlisten: () => Promise<void>;
  try {
    unlisten = await pglite.listen(channel, (payload) => handlers.onNotify(payload));
  } catch (error) {
    handlers.onState(false, error instanceof Error ? error : new Error(String(error)));
    return async () => undefined;
  }
  handlers.onState(true);
  return async () => {
    handlers.onState(false);
    await unlisten();
  };
}
