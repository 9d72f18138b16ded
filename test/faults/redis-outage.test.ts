/**
 * Issue 10, item 4: Redis away costs no latency and does not switch the rate limit off. The limit
 * falls back to per-process counters, the change of state is logged once, and /readyz says the
 * rate limit is degraded while staying ready. A real process; "no added latency" is shown by every
 * request of a burst being answered (each would wait for Redis otherwise), not by timing.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { pollUntil } from '../helpers/poll';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { refusingRedis, type FakeRedis } from '../helpers/refusing-redis';

// A test starts a server on a new embedded database, which startServerProcess allows 180 s on a
// loaded machine (a PostgreSQL run of every suite took a test past 120 s there, its server still starting).
jest.setTimeout(240_000);

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** `total` requests, `concurrency` at a time; the statuses, in no particular order. */
async function burst(url: string, total: number, concurrency = 20): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const res = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ __typename }' }),
        });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    }),
  );
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;
const logLines = (server: ServerProcess, pattern: RegExp) =>
  server.output.map((l) => JSON.parse(l) as { msg: string }).filter((l) => pattern.test(l.msg));
const readyz = async (url: string) => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: { rateLimit: string } } };
};

describe('Redis unreachable from the start (REDIS_URL at a closed port)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-redis-'));
  let server: ServerProcess;
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers all 300 requests of a burst, at most 100 of them 200, and logs the outage once', async () => {
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      RATE_LIMIT_MAX: '100',
      RATE_LIMIT_WINDOW_MS: '60000',
      NODE_ENV: 'production',
    });
    const statuses = await burst(server.url, 300);
    expect(statuses).toHaveLength(300);
    expect(count(statuses, 200)).toBe(100);
    expect(count(statuses, 429)).toBe(200);
    expect(logLines(server, /rate-limit Redis unavailable/)).toHaveLength(1);
    const ready = await readyz(server.url);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('degraded');
    expect(ready.body.checks.rateLimit).toMatch(/^degraded/);
  });
});

describe('Redis that answers PING but refuses every write (out of memory)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-redis-'));
  let server: ServerProcess;
  let redis: FakeRedis;
  afterAll(async () => {
    await server?.stop();
    redis?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is reported as the outage it is: one log line, /readyz degraded, the limit counted per process', async () => {
    redis = await refusingRedis();
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      RATE_LIMIT_MAX: '10',
      NODE_ENV: 'production',
    });
    const statuses = await burst(server.url, 30, 5);
    // The limit still holds, counted in memory.
    expect(count(statuses, 200) + count(statuses, 429)).toBe(30);
    expect(count(statuses, 200)).toBeLessThanOrEqual(10);
    // It used to be silent: /readyz said "ok (redis)", no line was logged, while every process
    // counted on its own.
    const ready = await readyz(server.url);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('degraded');
    expect(ready.body.checks.rateLimit).toMatch(/^degraded/);
    const lines = logLines(server, /rate-limit Redis unavailable/);
    expect(lines).toHaveLength(1);
    expect(JSON.stringify(lines[0])).toContain('OOM');
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
const describeWithRedis = describeIf(Boolean(redisUrl), NEEDS_REDIS);

/** Processes and proxies of the Redis suites below, stopped after the file. */
const started: { server: ServerProcess; proxy: TcpProxy; dataDir: string }[] = [];
afterAll(async () => {
  for (const { server, proxy, dataDir } of started) {
    await server.stop();
    await proxy.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/**
 * A production gateway on an embedded database of its own whose Redis (TEST_REDIS_URL, a prefix of
 * its own) it reaches through a proxy the test controls; resolved once it counts in Redis.
 */
async function gatewayBehindRedisProxy(
  env: Record<string, string>,
): Promise<{ server: ServerProcess; proxy: TcpProxy }> {
  const target = new URL(redisUrl!);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-redis-'));
  const server = await startServerProcess({
    PGLITE_DATA_DIR: dataDir,
    REDIS_URL: proxy.via(redisUrl!),
    RATE_LIMIT_REDIS_PREFIX: `petstore-test-${crypto.randomUUID()}:`,
    NODE_ENV: 'production',
    ...env,
  });
  started.push({ server, proxy, dataDir });
  const ready = await pollUntil(
    () => readyz(server.url),
    (r) => r.body.checks.rateLimit === 'ok (redis)',
  );
  expect(ready.body.checks.rateLimit).toBe('ok (redis)');
  return { server, proxy };
}

describeWithRedis('Redis going away and coming back (through a proxy the test controls)', () => {
  it('falls back to per-process counters while Redis is away, then shares them again', async () => {
    const { server, proxy } = await gatewayBehindRedisProxy({ RATE_LIMIT_MAX: '50', RATE_LIMIT_WINDOW_MS: '60000' });
    const before = await burst(server.url, 20);
    expect(count(before, 200)).toBe(20);

    await proxy.refuse();
    const during = await burst(server.url, 150);
    expect(during).toHaveLength(150);
    // The in-memory counters start afresh: at most the limit is served while Redis is away.
    expect(count(during, 200)).toBeLessThanOrEqual(50);
    expect(count(during, 429)).toBeGreaterThanOrEqual(100);
    expect((await readyz(server.url)).body.status).toBe('degraded');

    await proxy.restore();
    const back = await pollUntil(
      () => readyz(server.url),
      (r) => r.body.status === 'ok',
      15_000,
    );
    expect(back.body.checks.rateLimit).toBe('ok (redis)');
    // Shared counters again: Redis still holds the 20 counted before the outage.
    const after = await burst(server.url, 40);
    expect(count(after, 200)).toBe(30);
    expect(logLines(server, /rate-limit Redis unavailable/)).toHaveLength(1);
    expect(logLines(server, /rate-limit Redis is back/)).toHaveLength(1);
  });
});

describeWithRedis('Redis that stops answering without closing (through a proxy the test controls)', () => {
  it('is taken for unreachable within seconds: /readyz says degraded, requests are served per process', async () => {
    const { server, proxy } = await gatewayBehindRedisProxy({ RATE_LIMIT_MAX: '1000' });

    proxy.blackhole();
    // Without the heartbeat a connection that never closes stayed "ready": /readyz said ok for good,
    // and every request waited for its commands to time out.
    const degraded = await pollUntil(
      () => readyz(server.url),
      (r) => r.body.status === 'degraded',
      10_000,
    );
    expect(degraded.body.checks.rateLimit).toMatch(/^degraded/);
    expect(await burst(server.url, 5, 1)).toEqual([200, 200, 200, 200, 200]);
    expect(logLines(server, /rate-limit Redis unavailable/)).toHaveLength(1);
  });
});
