/**
 * The name of the pool (primary, replica-N) each PostgreSQL server address belongs to, so that a
 * trace's statement span can say which pool it ran on (telemetry/preload.ts reads it in the pg
 * instrumentation's request hook, which sees only the connection's host, port and database).
 * No imports: the preload loads it before pg.
 */
const names = new Map<string, string>();

const key = (host: unknown, port: unknown, database: unknown) =>
  `${String(host)}:${String(port ?? 5432)}/${String(database)}`;

/** Records that connections to `url` belong to the pool `name`. */
export function registerPoolName(url: string, name: string): void {
  try {
    const u = new URL(url);
    names.set(key(u.hostname, u.port || 5432, decodeURIComponent(u.pathname.slice(1))), name);
  } catch {
    // Not a URL: no name for its spans.
  }
}

/** The pool of a connection, as the pg instrumentation describes it. */
export function poolNameOf(connection: { host?: string; port?: number; database?: string }): string | undefined {
  return names.get(key(connection.host, connection.port, connection.database));
}
