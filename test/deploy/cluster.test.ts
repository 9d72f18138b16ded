/**
 * Issue 30, item 2: WEB_CONCURRENCY worker processes on one port under a node:cluster primary
 * (src/cluster.ts), as real processes: METRICS_PORT sums every worker; a subscription gets events
 * whichever worker holds its socket and whichever took the write; a worker killed with SIGKILL under
 * load costs at most the requests it held (>= 99 % answered) and is replaced within seconds; SIGTERM
 * drains every worker's in-flight requests and exits 0 with no process left; with Redis the rate
 * limit is exact across workers. PostgreSQL only: the embedded database is one process.
 */
import http from 'node:http';
import { describeIf, NEEDS_POSTGRES, NEEDS_REDIS } from '../helpers/describe-if';
import { petInStock, startGateway, type GatewayFixture, gql } from '../helpers/gateway-fixture';
import { freePort } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';
import { connectWs, subscribe, until, type TestWsClient } from '../helpers/ws-client';

jest.setTimeout(240_000);

interface LogLine {
  msg: string;
  role?: string;
  pid: number;
  slot?: number;
  workers?: number;
  code?: number;
}

const lines = (f: GatewayFixture): LogLine[] =>
  f.server.output.flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
const primaryLines = (f: GatewayFixture, msg: string) => lines(f).filter((l) => l.role === 'primary' && l.msg === msg);
/** The pid of each worker slot's current worker, from the primary's "worker listening" lines. */
const workerPids = (f: GatewayFixture): Map<number, number> =>
  new Map(primaryLines(f, 'worker listening').map((l) => [l.slot!, l.pid]));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function startCluster(env: Record<string, string>): Promise<GatewayFixture> {
  const fixture = await startGateway({ WEB_CONCURRENCY: '2', ...env });
  // /healthz answers once the first worker listens; ready is when both do.
  await until(() => primaryLines(fixture, 'petstore gateway ready').length > 0, 50);
  return fixture;
}

async function scrape(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}
const sample = (text: string, series: string): number =>
  Number(new RegExp(`^${series.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/** A POST whose body is sent in part; `finish()` sends the rest. On a connection of its own. */
function partialPost(url: string, body: string) {
  const { hostname, port } = new URL(url);
  let finish!: () => void;
  const answer = new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path: '/graphql',
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 5));
    finish = () => req.end(body.slice(5));
  });
  return { answer, finish: () => finish() };
}

describeIf(usingPostgres(), NEEDS_POSTGRES)('WEB_CONCURRENCY=2: two workers on one port', () => {
  let fixture: GatewayFixture;
  let metricsPort: number;
  const sockets: TestWsClient[] = [];
  const afterAllDone: (() => void)[] = [];
  afterEach(() => afterAllDone.splice(0).forEach((f) => f()));

  beforeAll(async () => {
    metricsPort = await freePort();
    fixture = await startCluster({ NODE_ENV: 'production', METRICS_PORT: String(metricsPort) });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await fixture?.dispose();
  });

  it('runs two workers under one primary, and METRICS_PORT serves their sum', async () => {
    expect(workerPids(fixture).size).toBe(2);
    for (let i = 0; i < 20; i++) {
      const reply = await gql(fixture.server.url, 'query ClusterCount { __typename }');
      expect(reply.status).toBe(200);
    }
    const text = await scrape(metricsPort);
    expect(sample(text, 'cluster_workers')).toBe(2);
    expect(
      sample(text, 'graphql_operation_duration_seconds_count{operation_name="ClusterCount",operation_type="query"}'),
    ).toBe(20);
    // A state, not a count: 1 while every worker's pool serves (a sum said 2), 0 once one's does not.
    expect(sample(text, 'db_pool_up{pool="primary",role="primary"}')).toBe(1);
  });

  it('delivers a subscription event whichever worker holds the socket and whichever took the write', async () => {
    const petId = await petInStock(fixture.server.url, fixture.admin, 10);
    const subscriptions = [];
    for (let i = 0; i < 4; i++) {
      // Connections are handed to the workers in turn: these four land on both.
      const ws = connectWs(fixture.server.url);
      sockets.push(ws);
      await ws.connected;
      subscriptions.push(
        subscribe<{ stockChanged: { quantity: number } }>(
          ws,
          'subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }',
          { p: [petId] },
        ),
      );
    }
    await until(async () => sample(await scrape(metricsPort), 'graphql_subscriptions_open') === 4, 100);
    const update = await gql(
      fixture.server.url,
      'mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 7 }) { quantity } }',
      { p: petId },
      fixture.admin,
    );
    expect(update.data).toEqual({ updateInventory: { quantity: 7 } });
    for (const s of subscriptions) expect((await s.take(1))[0]!.data).toEqual({ stockChanged: { quantity: 7 } });
  });

  it('loses only the requests in flight on a worker killed (SIGKILL), and replaces it within seconds', async () => {
    const before = workerPids(fixture);
    const victim = before.get(2)!;
    let ok = 0;
    let failed = 0;
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const res = await fetch(`${fixture.server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"query":"{ __typename }"}',
            // A connection handed to the worker as it was killed may never be answered: a client gives up.
            signal: AbortSignal.timeout(10_000),
          });
          await res.text();
          if (res.status === 200) ok++;
          else failed++;
        } catch {
          failed++;
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    // Whatever happens below, the load stops with this test.
    const stopLoad = () => (running = false);
    afterAllDone.push(stopLoad);
    await new Promise((r) => setTimeout(r, 1_000));
    const killedAt = Date.now();
    process.kill(victim, 'SIGKILL');
    const replaced = () => {
      const pid = workerPids(fixture).get(2);
      return pid !== undefined && pid !== victim;
    };
    while (!replaced() && Date.now() - killedAt < 60_000) await new Promise((r) => setTimeout(r, 50));
    const replacedInMs = Date.now() - killedAt;
    await new Promise((r) => setTimeout(r, 1_000));
    running = false;
    await Promise.all(clients);
    // A worker starts in 2-3 s on a quiet machine; on the shared 2-core one, under this load, it has taken 26 s.
    expect(replacedInMs).toBeLessThan(60_000);
    expect(alive(victim)).toBe(false);
    expect(ok + failed).toBeGreaterThan(100);
    // Each client loses at most the request it had on the killed worker's connection, and one more
    // handed to the worker before the primary saw it die (a ratio would depend on how many requests
    // a loaded machine got through meanwhile).
    expect(failed).toBeLessThanOrEqual(2 * clients.length);
    // The new worker serves: the metrics count it again.
    expect(sample(await scrape(metricsPort), 'cluster_workers')).toBe(2);
    expect(sample(await scrape(metricsPort), 'cluster_worker_restarts_total')).toBe(1);
  });

  it('SIGTERM: every worker answers its in-flight requests, then all exit, the primary with 0', async () => {
    const pids = [fixture.server.child.pid!, ...workerPids(fixture).values()];
    const stops = primaryLines(fixture, 'worker stopped').length;
    const inFlight = Array.from({ length: 6 }, () => partialPost(fixture.server.url, '{"query":"{ __typename }"}'));
    // Each request's connection is accepted (by a worker) before the signal.
    await new Promise((r) => setTimeout(r, 300));
    fixture.server.child.kill('SIGTERM');
    await until(() => primaryLines(fixture, 'shutting down: every worker finishes its in-flight requests').length > 0);
    await new Promise((r) => setTimeout(r, 200));
    for (const request of inFlight) request.finish();
    expect(await Promise.all(inFlight.map((r) => r.answer))).toEqual([200, 200, 200, 200, 200, 200]);
    const { child } = fixture.server;
    expect(child.exitCode ?? (await new Promise((resolve) => child.once('exit', resolve)))).toBe(0);
    await until(() => pids.every((pid) => !alive(pid)), 50);
    expect(
      primaryLines(fixture, 'worker stopped')
        .slice(stops)
        .map((l) => l.code),
    ).toEqual([0, 0]);
  });
});

describeIf(
  usingPostgres() && Boolean(process.env.TEST_REDIS_URL),
  process.env.TEST_REDIS_URL ? NEEDS_POSTGRES : NEEDS_REDIS,
)('WEB_CONCURRENCY=2 with REDIS_URL', () => {
  let fixture: GatewayFixture;
  afterAll(() => fixture?.dispose());

  it('keeps the rate limit exact across workers: RATE_LIMIT_MAX answers, then 429', async () => {
    fixture = await startCluster({
      REDIS_URL: process.env.TEST_REDIS_URL!,
      RATE_LIMIT_REDIS_PREFIX: `cluster-test-${process.pid}-${Date.now()}:`,
      RATE_LIMIT_MAX: '10',
      RATE_LIMIT_WINDOW_MS: '60000',
    });
    // Each worker counts in Redis once its connection is up (until then it counts in memory, as in a
    // Redis outage, and /readyz says so): wait until six fresh connections, spread over both, say redis.
    const readyRedis = async () => {
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${fixture.server.url}/readyz`, { headers: { connection: 'close' } });
        const body = (await res.json()) as { checks?: { rateLimit?: string } };
        if (body.checks?.rateLimit !== 'ok (redis)') return false;
      }
      return true;
    };
    await until(readyRedis, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      // A connection per request, so the requests are spread over both workers.
      const status = await new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(fixture.server.url);
        http
          .get({ host: hostname, port, path: '/pets/1', agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
          .on('error', reject);
      });
      statuses.push(status);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(statuses.slice(0, 10).every((s) => s !== 429)).toBe(true);
  });
});
