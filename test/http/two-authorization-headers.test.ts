/**
 * Two Authorization header lines are not one credential (RFC 9110 allows one line): Node keeps the
 * first and drops the others, so `Authorization: <valid key>` + `Authorization: <anything>` was served
 * as the first key, while a proxy in front of the gateway may have read (and checked, or logged) the
 * other. docs/keys-scopes-limits.md: a credential that is not a valid key is 401 on every request.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminKeyFor, startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(60_000);

/** A POST /graphql with the given Authorization lines (an array value: one line each). */
function post(url: string, authorization: string[]): Promise<{ status: number; body: string; challenge?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${url}/graphql`, { method: 'POST' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, body, challenge: response.headers['www-authenticate'] }),
      );
    });
    request.on('error', reject);
    request.setHeader('content-type', 'application/json');
    request.setHeader('authorization', authorization);
    request.end(JSON.stringify({ query: '{ me { kind } }' }));
  });
}

describe('two Authorization headers', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-twoauth-'));
  const env = { PGLITE_DATA_DIR: dataDir, NODE_ENV: 'production' };
  let server: ServerProcess;
  let admin: string;
  beforeAll(async () => {
    admin = (await adminKeyFor(env)).authorization!;
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves one valid key', async () => {
    const res = await post(server.url, [admin]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ data: { me: { kind: 'API_KEY' } } });
  });

  it.each([
    ['a valid key, then another credential', () => [admin, 'Bearer pk_someoneelse']],
    ['another credential, then a valid key', () => ['Bearer pk_someoneelse', admin]],
    ['the same valid key twice', () => [admin, admin]],
  ])('refuses %s with 401 invalid_token, running nothing', async (_name, lines) => {
    const res = await post(server.url, lines());
    expect(res.status).toBe(401);
    expect(res.challenge).toBe('Bearer error="invalid_token"');
    const body = JSON.parse(res.body) as { data?: unknown; errors: { extensions: { code: string } }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.extensions.code).toBe('UNAUTHENTICATED');
  });
});
