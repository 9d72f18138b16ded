/**
 * Who may open and keep a subscription connection: the browser Origin allowed at the upgrade, the
 * key a `connection_init` carries, and the connection counts per address and per key.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config';

/**
 * Every credential a `connectionParams` object carries: its `Authorization` entries and those of
 * `headers`, any case. More than one different credential is none (acceptConnection refuses it), as
 * more than one Authorization header is over HTTP.
 */
export function authorizationParams(params: Record<string, unknown> | undefined): unknown[] {
  if (!params) return [];
  const find = (o: Record<string, unknown>) =>
    Object.entries(o)
      .filter(([k]) => k.toLowerCase() === 'authorization')
      .map(([, v]) => v);
  const headers = params.headers;
  return [...find(params), ...(headers && typeof headers === 'object' ? find(headers as Record<string, unknown>) : [])];
}

/**
 * Whether a browser page at the request's `Origin` may open a WebSocket here. Requests without
 * Origin are not from browsers (a browser always sends it on a WebSocket upgrade). The allow-list is
 * CORS_ORIGINS (`*`: any page). Outside production a page served from the host it connects to
 * (Origin host = Host header) is allowed too, so the explorer and local apps work unlisted; in
 * production it is not, because the Host header is the client's to choose: a page on a rebound DNS
 * name sends `Origin: http://evil.example` with `Host: evil.example` and would pass.
 */
export function originAllowed(
  request: FastifyRequest,
  allowed: Config['cors']['origins'],
  sameHostOrigin: boolean,
): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || allowed === '*') return true;
  if (allowed.includes(origin)) return true;
  if (!sameHostOrigin) return false;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** Open connections by a string (an address, a key id): counted up when opened, down exactly once. */
export class ConnectionCounts {
  readonly #counts = new Map<string, number>();

  count(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  /** Counts a connection for `key`; the function returned releases it, once, however often called. */
  hold(key: string): () => void {
    this.#counts.set(key, this.count(key) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const n = this.count(key) - 1;
      if (n > 0) this.#counts.set(key, n);
      else this.#counts.delete(key);
    };
  }
}
