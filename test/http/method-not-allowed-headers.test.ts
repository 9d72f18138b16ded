/**
 * docs/security.md: the API's answers "and their errors" get the API's security headers; pages and
 * paths no route names get a page's. A 405 of an API path (`DELETE /pets/1`, `POST /store/orders`,
 * `PUT /graphql`) is an error of that path, in the Error shape: it got a page's headers
 * (`X-Frame-Options: SAMEORIGIN`, CSP `default-src 'self'`, Cross-Origin-Opener-Policy, ...).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(60_000);

describe('security headers of a 405 on an API path (production)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-405headers-'));
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServerProcess({ PGLITE_DATA_DIR: dataDir, NODE_ENV: 'production' });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['DELETE', '/pets/1'],
    ['POST', '/store/orders'],
    ['PUT', '/graphql'],
  ])('%s %s: the API profile', async (method, url) => {
    const res = await fetch(`${server.url}${url}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
    expect(res.headers.get('x-xss-protection')).toBeNull();
  });

  it('a path no route names keeps a page profile', async () => {
    const res = await fetch(`${server.url}/no-such-page`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });
});
