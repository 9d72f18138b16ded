/**
 * PostgreSQL LISTEN, in both database modes: a process subscribes to a channel and hears every
 * `NOTIFY` (or `pg_notify(channel, payload)`) sent on it, by any process, when the sending
 * transaction commits (a rolled-back transaction notifies nobody).
 *
 * - postgres: a dedicated `pg.Client`, outside the pool (a pooled connection is shared and recycled,
 *   and a LISTEN belongs to the session that ran it). If that connection fails or ends, notifications
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
}

/**
 * Listens on `channel` over a dedicated connection to `url`. Resolves after the first attempt to
 * connect, whether it succeeded (`onState(true)` was called) or not (it keeps retrying).
 */
export async function listenPostgres(
  url: string,
  channel: string,
  handlers: ListenHandlers,
  { minBackoffMs = 200, maxBackoffMs = 10_000, keepAliveInitialDelayMs = 10_000 }: PostgresListenOptions = {},
): Promise<Unlisten> {
  let stopped = false;
  let listening = false;
  let client: Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const connect = async (): Promise<void> => {
    const c = new Client({ connectionString: url, keepAlive: true, keepAliveInitialDelayMillis: keepAliveInitialDelayMs });
    client = c;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      if (client === c) client = null;
      c.end().catch(() => undefined);
      if (stopped) return;
      listening = false;
      handlers.onState(false, error);
      // Backoff with jitter, so that many processes losing one server do not reconnect in step.
      const delay = Math.min(maxBackoffMs, minBackoffMs * 2 ** failures++) * (0.5 + Math.random() / 2);
      retry = setTimeout(() => void connect(), delay);
      retry.unref();
    };
    c.on('error', fail);
    c.on('end', () => fail(new Error('the LISTEN connection ended')));
    c.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotify(message.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (failed || stopped) return;
    failures = 0;
    listening = true;
    handlers.onState(true);
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = null;
    if (listening) {
      listening = false;
      handlers.onState(false);
    }
    await c?.end().catch(() => undefined);
  };
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
