/**
 * Issue 10, item 3: every request is counted by the rate limit before any credential is looked up
 * in the database. Once a client address has used its budget, a flood of unknown `pk_` keys from it
 * is answered 429 (with RateLimit-* headers) and costs no query.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createApiKey, createTestApp, type TestApp } from '../helpers/test-app';

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
    // The anonymous budget of the same address is the one spent.
    expect((await send()).status).toBe(429);
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
    // Its first request was also counted against its address (before the key was known valid).
    expect((await ask({}, '10.9.1.1')).headers['ratelimit-remaining']).toBe('1');
  });
});
