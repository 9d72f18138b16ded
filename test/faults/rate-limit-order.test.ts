/**
 * Issue 10, item 3: every request is counted by the rate limit before any credential is looked up
 * in the database. Once a client address has used its budget, a flood of unknown `pk_` keys from it
 * is answered 429 (with RateLimit-* headers) and costs no query.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { loadConfig } from '../../src/config';
import { createApiKey, createTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

jest.setTimeout(60_000);

const randomKey = () => `pk_${crypto.randomBytes(32).toString('base64url')}`;
const body = JSON.stringify({ query: '{ __typename }' });

describe('a flood of unknown keys against a real process (RATE_LIMIT_MAX=5)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-rlorder-'));
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({
      PGLITE_DATA_DIR: dataDir,
      RATE_LIMIT_MAX: '5',
      RATE_LIMIT_WINDOW_MS: '60000',
      NODE_ENV: 'production',
    });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('is 401 while the address has budget, then 429 with RateLimit headers for every further key', async () => {
    const send = (authorization?: string) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await send(`Bearer ${randomKey()}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const flood = await Promise.all(Array.from({ length: 100 }, () => send(`Bearer ${randomKey()}`)));
    for (const res of flood) {
      expect(res.status).toBe(429);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
        'RATE_LIMITED',
      );
    }
    // The address's budget for key lookups is the one spent: its anonymous requests have their own
    // (issue 28, item 5), so a flood of bad keys costs no query and locks out no anonymous reader.
    expect((await send()).status).toBe(200);
  });
});

describe('what the flood costs (statements counted in process)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(() => t.close());

  const ask = (headers: Record<string, string>, remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload: body,
      remoteAddress,
    });

  it('sends no SQL for unknown keys once the address is over its budget', async () => {
    for (let i = 0; i < 3; i++)
      expect((await ask({ authorization: `Bearer ${randomKey()}` }, '10.9.0.1')).statusCode).toBe(401);
    t.sql.reset();
    for (let i = 0; i < 50; i++)
      expect((await ask({ authorization: `Bearer ${randomKey()}` }, '10.9.0.1')).statusCode).toBe(429);
    expect(t.sql.count).toBe(0);
  });

  it('still gives each valid key its own budget, from any address', async () => {
    const key = await createApiKey(t, ['orders:read']);
    for (const address of ['10.9.1.1', '10.9.1.2', '10.9.1.3']) expect((await ask(key, address)).statusCode).toBe(200);
    expect((await ask(key, '10.9.1.4')).statusCode).toBe(429);
    // Its first request was also counted against its address's lookup budget (before the key was
    // known valid), not against the address's anonymous requests.
    expect((await ask({}, '10.9.1.1')).headers['ratelimit-remaining']).toBe('2');
    expect((await ask({ authorization: `Bearer ${randomKey()}` }, '10.9.1.1')).headers['ratelimit-remaining']).toBe(
      '1',
    );
  });
});

describe('an anonymous flood and a key holder behind one address (issue 28, item 5; RATE_LIMIT_MAX=10)', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({ NODE_ENV: 'production', RATE_LIMIT_MAX: '10', RATE_LIMIT_WINDOW_MS: '600000' });
  });
  afterAll(async () => gateway?.dispose());

  it('serves a valid key this process has never seen after the address has spent its anonymous budget', async () => {
    const send = (headers: Record<string, string> = {}) =>
      fetch(`${gateway.server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const anonymous: number[] = [];
    for (let i = 0; i < 15; i++) anonymous.push((await send()).status);
    expect(anonymous.filter((s) => s === 429)).toHaveLength(5);
    // The key was made before the process started: not in its key cache, so it is looked up first.
    for (let i = 0; i < 3; i++) {
      const keyed = await send(gateway.admin);
      expect(keyed.status).toBe(200);
      expect(keyed.headers.get('ratelimit-limit')).toBe('10');
    }
    expect((await send()).status).toBe(429);
  });
});

describe('TRUST_PROXY=true behind a load balancer that appends to X-Forwarded-For (issue 28, item 4)', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({
      NODE_ENV: 'production',
      TRUST_PROXY: 'true',
      RATE_LIMIT_MAX: '10',
      RATE_LIMIT_WINDOW_MS: '600000',
    });
  });
  afterAll(async () => gateway?.dispose());

  it('counts the address the proxy saw, whatever the client wrote before it', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const response = await fetch(`${gateway.server.url}/graphql`, {
        method: 'POST',
        // The client sent `X-Forwarded-For: 10.9.9.<i>`; the load balancer appended the address it saw.
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.9.${i}, 203.0.113.7` },
        body,
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual(Array(5).fill(429));
    // Another client behind the same load balancer has its own budget.
    const other = await fetch(`${gateway.server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.8' },
      body,
    });
    expect(other.status).toBe(200);
  });
});

describe('TRUST_PROXY as a number of hops or a list of proxy addresses (issue 28, item 4)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.destroy());

  it('takes the client as that many hops back from the socket', async () => {
    const t = await createTestApp({ env: { TRUST_PROXY: '2', RATE_LIMIT_MAX: '3' }, database });
    try {
      const ask = (xff: string) =>
        t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
          payload: body,
          remoteAddress: '10.0.0.2',
        });
      // CDN -> load balancer (10.0.0.2) -> gateway: the client is the entry the CDN appended.
      for (let i = 0; i < 3; i++) expect((await ask(`6.6.6.${i}, 198.51.100.4, 10.0.0.1`)).statusCode).toBe(200);
      expect((await ask('7.7.7.7, 198.51.100.4, 10.0.0.1')).statusCode).toBe(429);
      expect((await ask('198.51.100.5, 10.0.0.1')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('takes the client as the first address from the right that is not a listed proxy', async () => {
    const t = await createTestApp({ env: { TRUST_PROXY: '10.0.0.0/8, 192.0.2.1', RATE_LIMIT_MAX: '3' }, database });
    try {
      const ask = (xff: string, remoteAddress = '10.1.2.3') =>
        t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
          payload: body,
          remoteAddress,
        });
      for (let i = 0; i < 3; i++)
        expect((await ask(`6.6.6.${i}, 198.51.100.4, 192.0.2.1, 10.0.0.1`)).statusCode).toBe(200);
      expect((await ask('198.51.100.4')).statusCode).toBe(429);
      // A request from an address that is not a proxy: its X-Forwarded-For is not believed at all.
      expect((await ask('198.51.100.4', '203.0.113.9')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses a value it does not understand at start, naming the variable', () => {
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY: .*not understood: 10\.0\.0\.0\/33/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'loopback, fd00::/8' }).trustProxy).toEqual(['loopback', 'fd00::/8']);
  });
});
