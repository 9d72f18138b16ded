/**
 * Issue 23, item 1: a refused WebSocket upgrade never leaves its socket open. Against a real process
 * over raw TCP: thousands of upgrade requests refused by different hooks (401 for a bad key, 429 once
 * the address's budget is spent, 401 from a REST route's access check, 403 for a foreign Origin),
 * each client hanging up as soon as it has read the status line, as `curl` does. Then the kernel's
 * count of the server's CLOSE_WAIT sockets returns to zero, health answers, and SIGTERM exits 0.
 * (Before the fix every refusal by the rate-limit or credential hooks stayed in CLOSE_WAIT forever,
 * and the process could not exit on SIGTERM.)
 */
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';
import type { ServerProcess } from '../helpers/server-process';
import { closeWaitCount, pool, sendAndHangUp, upgradeRequest } from '../helpers/raw-socket';
import { until } from '../helpers/ws-client';

jest.setTimeout(120_000);

describe('refused WebSocket upgrades (real process, raw sockets)', () => {
  let gateway: GatewayFixture | undefined;
  let server: ServerProcess;
  let port: number;
  beforeAll(async () => {
    gateway = await startGateway({ NODE_ENV: 'production', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '200' });
    server = gateway.server;
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  it('closes every refused upgrade: no CLOSE_WAIT left, health answers, SIGTERM exits 0', async () => {
    const host = `127.0.0.1:${port}`;
    const kinds = [
      upgradeRequest(host, { Authorization: 'Bearer pk_bad' }),
      upgradeRequest(host).replace('GET /graphql', 'GET /store/orders'),
      upgradeRequest(host, { Origin: 'http://evil.example' }),
      upgradeRequest(host, { Authorization: 'Basic abc' }),
    ];
    const statuses = await pool(3_000, 50, (i) => sendAndHangUp(server.url, kinds[i % kinds.length]!));
    const seen = new Set(statuses);
    // Every refusal path was exercised: bad key, REST access, Origin, then the rate limit.
    expect([...seen].sort()).toEqual([401, 403, 429]);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(2_000);

    // Within seconds the server has closed its side of every one of them.
    const deadline = Date.now() + 5_000;
    await until(() => closeWaitCount(port) === 0 || Date.now() > deadline, 100);
    expect(closeWaitCount(port)).toBe(0);

    const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    expect(health.status).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
