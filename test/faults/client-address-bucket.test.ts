/**
 * The per-address budgets count a client, not a spelling of its address: behind a load balancer
 * that writes `address:port` into X-Forwarded-For (Azure Application Gateway), or with IPv6 (a host
 * holds a whole /64), a client with a fresh port or a fresh address of its /64 was a fresh budget.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(60_000);

describe('the per-address rate limit behind TRUST_PROXY=1 (RATE_LIMIT_MAX=3)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-addrbucket-'));
  let server: ServerProcess;
  beforeAll(async () => {
    // Any free port: a fixed one (47600, in Linux's range of ports for outgoing connections) could be
    // held for a moment by another process's connection, and all three attempts asked for it.
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      TRUST_PROXY: '1',
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
      NODE_ENV: 'production',
    });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // The load balancer appended the address it saw (and, for some, the client's port).
  const ask = async (forwardedFor: string) =>
    (
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ query: '{ __typename }' }),
      })
    ).status;

  it('counts an address written with a port against the address, whatever the port', async () => {
    const statuses = [];
    for (const port of [40001, 40002, 40003, 40004]) statuses.push(await ask(`203.0.113.7:${port}`));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await ask('203.0.113.7')).toBe(429);
    expect(await ask('203.0.113.8:40001')).toBe(200);
  });

  it('counts an IPv6 client by its /64, however the address is written', async () => {
    const statuses = [];
    for (const address of ['2001:db8:5:6::1', '2001:DB8:5:6::2', '2001:db8:5:6:0:0:abcd:3', '[2001:db8:5:6::4]:443'])
      statuses.push(await ask(address));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await ask('2001:db8:5:7::1')).toBe(200);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    for (let i = 0; i < 3; i++) expect(await ask('198.51.100.9')).toBe(200);
    expect(await ask('::ffff:198.51.100.9')).toBe(429);
  });
});
