/**
 * The container's HEALTHCHECK (Dockerfile): `node dist/src/healthcheck.js` exits 0 when GET /readyz
 * on this host's PORT answers 200 within 3 s, 1 otherwise. Node's own fetch: the runtime image has no
 * curl or wget, and needs none. Reads PORT and HOST only (not the whole configuration): it must stay
 * cheap. The server listens on HOST: a wildcard (0.0.0.0, ::, the default) is reached on loopback,
 * any other address (a pod's own, 127.0.0.2) there, since nothing answers on loopback then.
 */
const port = Number(process.env.PORT || 4000);
const host = (process.env.HOST ?? '').trim();
const address = !host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
const url = `http://${address}:${port}/readyz`;

fetch(url, { signal: AbortSignal.timeout(3_000) }).then(
  (res) => {
    if (!res.ok) console.error(`${url} answered ${res.status}`);
    process.exit(res.ok ? 0 : 1);
  },
  (error: unknown) => {
    console.error(`${url}: ${(error as Error).message}`);
    process.exit(1);
  },
);
