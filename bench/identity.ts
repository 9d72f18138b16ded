/**
 * What verifying an access token costs per request, next to an API key (issue 31): one gateway (T3,
 * the service as shipped, on PGlite) trusting an identity provider that this script serves itself
 * over HTTP (discovery + JWKS), driven with W1 (`pet(id)`, the cheapest read, so that what
 * authentication costs is the largest share) in interleaved rounds with four credentials: none, an
 * API key (cached after its first use), an RS256 token and an ES256 token (verified on every request
 * against the cached key set). Reports req/s, p50 and the server process's CPU-ms per request, and
 * each against the API key.
 *
 * `npm run bench:identity [-- --rounds N --duration S --connections N]`. Not a test.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { createApiKey, DATA, seedPglite } from './seed';
import { startTarget, type Target } from './targets';
import { createTokenVerifier } from '../src/modules/auth/access-token';

async function provider() {
  const jose = await import('jose');
  const keys = await Promise.all(
    (['RS256', 'ES256'] as const).map(async (alg) => {
      const { privateKey, publicKey } = await jose.generateKeyPair(alg);
      return {
        alg,
        kid: alg.toLowerCase(),
        privateKey,
        jwk: { ...(await jose.exportJWK(publicKey)), alg, kid: alg.toLowerCase() },
      };
    }),
  );
  let issuer = '';
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (alg: 'RS256' | 'ES256') => {
    const key = keys.find((k) => k.alg === alg)!;
    return new jose.SignJWT({ scope: 'openid profile' })
      .setProtectedHeader({ alg, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setAudience('petstore-bench')
      .setSubject(`bench-${alg}`)
      .setIssuedAt()
      .setExpirationTime('2h')
      .sign(key.privateKey);
  };
  return { issuer, sign, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '4' },
      connections: { type: 'string', default: '8' },
    },
    strict: true,
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-identity-'));
  const idp = await provider();
  let target: Target | null = null;
  try {
    const dir = path.join(tmp, 'pglite');
    await seedPglite(dir);
    const key = createApiKey({ PGLITE_DATA_DIR: dir }).key;
    if (!key) throw new Error('no API key');
    const variants: { name: string; headers: Record<string, string> }[] = [
      { name: 'anonymous', headers: {} },
      { name: 'API key', headers: { authorization: `Bearer ${key}` } },
      { name: 'access token RS256', headers: { authorization: `Bearer ${await idp.sign('RS256')}` } },
      { name: 'access token ES256', headers: { authorization: `Bearer ${await idp.sign('ES256')}` } },
    ];
    target = await startTarget(
      'T3',
      'pglite',
      { PGLITE_DATA_DIR: dir },
      { RATE_LIMIT_MAX: '10000000', AUTH_JWT_ISSUER: idp.issuer, AUTH_JWT_AUDIENCE: 'petstore-bench' },
    );
    const t = target;
    const load = (i: number, durationSec: number) =>
      runLoad({
        url: t.url,
        workload: 'W1',
        data: DATA,
        connections: Number(values.connections),
        durationSec,
        headers: variants[i]!.headers,
      });
    for (let i = 0; i < variants.length; i++) {
      const warm = await load(i, 1);
      if (warm.non2xx || warm.errors) throw new Error(`${variants[i]!.name}: ${warm.non2xx + warm.errors} failed`);
    }
    const cpu: number[][] = variants.map(() => []);
    const rps: number[][] = variants.map(() => []);
    const p50: number[][] = variants.map(() => []);
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (let i = 0; i < variants.length; i++) {
        const before = await t.stats();
        const r = await load(i, Number(values.duration));
        const after = await t.stats();
        const perReq = (after.cpuMicros - before.cpuMicros) / 1000 / Math.max(1, r.requests);
        cpu[i]!.push(perReq);
        rps[i]!.push(r.rps);
        p50[i]!.push(r.p50);
        console.error(
          `round ${round} ${variants[i]!.name}: ${r.rps.toFixed(0)} req/s, ${perReq.toFixed(3)} CPU-ms/req${r.non2xx || r.errors ? `, ${r.non2xx + r.errors} failed` : ''}`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}; median of ${values.rounds} interleaved rounds of ${values.duration} s\n`,
    );
    console.log(
      '| W1 `pet(id)` on T3 (PGlite) | req/s | p50 ms | CPU-ms/req | CPU vs API key |\n|---|---|---|---|---|',
    );
    const base = median(cpu[1]!);
    for (const [i, v] of variants.entries())
      console.log(
        `| ${v.name} | ${median(rps[i]!).toFixed(0)} | ${median(p50[i]!).toFixed(2)} | ${median(cpu[i]!).toFixed(3)} | ${(median(cpu[i]!) / base).toFixed(2)}x |`,
      );
    // The verification alone, in this process, on a quiet core or not: microseconds per token.
    const verifier = (await createTokenVerifier(
      {
        jwt: {
          issuer: idp.issuer,
          audience: 'petstore-bench',
          jwksUrl: null,
          clockToleranceS: 30,
          fetchTimeoutMs: 3000,
          cooldownMs: 30000,
        },
        dev: null,
      },
      { info() {}, warn() {} } as never,
    ))!;
    console.log('\n| verify() in process | µs per token (median of 5 x 2000) |\n|---|---|');
    for (const alg of ['RS256', 'ES256'] as const) {
      const token = await idp.sign(alg);
      await verifier.verify(token); // fetches the key set once
      const runs: number[] = [];
      for (let r = 0; r < 5; r++) {
        const start = process.hrtime.bigint();
        for (let i = 0; i < 2000; i++) await verifier.verify(token);
        runs.push(Number(process.hrtime.bigint() - start) / 1000 / 2000);
      }
      console.log(`| ${alg} | ${median(runs).toFixed(1)} |`);
    }
  } finally {
    await target?.stop();
    await idp.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
