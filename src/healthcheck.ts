/**
 * The container's HEALTHCHECK (Dockerfile): `node dist/src/healthcheck.js` exits 0 when GET /readyz
 * on this host's PORT answers 200 within 3 s, 1 otherwise. Node's own fetch: the runtime image has no
 * curl or wget, and needs none. Reads PORT only (not the whole configuration): it must stay cheap.
 */
const port = Number(process.env.PORT || 4000);
const url = `http://127.0.0.1:${port}/readyz`;

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
