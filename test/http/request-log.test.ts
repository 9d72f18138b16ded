/**
 * The log of a real server process (`node dist/src/main.js`, its production logger): one line per
 * request with method, path (credentials redacted), status, duration, request id and, for GraphQL,
 * the operation and the error codes; API-key changes logged without the key; the readable format.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApiKeyCli, startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(120_000);

interface LogLine {
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  status?: number;
  durationMs?: number;
  graphql?: { operationName?: string | null; operationType?: string; errorCodes?: string[] };
  apiKey?: { id: string; name: string; scopes: string[] };
}

describe('the request log', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-log-'));
  let server: ServerProcess;
  let key: string;
  beforeAll(async () => {
    server = await startServerProcess({ PGLITE_DATA_DIR: path.join(dataDir, 'data') });
    // Beside a running server the CLI goes through it (admin socket): the server logs the change.
    const created = await runApiKeyCli(['create', '--name', 'logged', '--scopes', 'orders:read'], {
      PGLITE_DATA_DIR: path.join(dataDir, 'data'),
    });
    key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^pk_/);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const lines = () => server.output.map((l) => JSON.parse(l) as LogLine);
  const linesOf = (reqId: string) => lines().filter((l) => l.reqId === reqId);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

  it('writes one line per GraphQL request with the operation, the status and the duration, and redacts credentials in the URL', async () => {
    const res = await fetch(`${server.url}/graphql?access_token=${key}&api_key=abc&first=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'log-query-1' },
      body: JSON.stringify({ query: 'query PetsForTheLog { pets(first: 1) { totalCount } }' }),
    });
    expect(res.status).toBe(200);
    await settle();
    const mine = linesOf('log-query-1');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      method: 'POST',
      url: '/graphql?access_token=[REDACTED]&api_key=[REDACTED]&first=1',
      status: 200,
      graphql: { operationName: 'PetsForTheLog', operationType: 'query' },
      msg: expect.stringMatching(
        /^POST \/graphql\?access_token=\[REDACTED\]&api_key=\[REDACTED\]&first=1 200 [\d.]+ ms query PetsForTheLog$/,
      ),
    });
    expect(mine[0]!.durationMs).toEqual(expect.any(Number));
  });

  it('carries the error codes of a GraphQL response', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'log-mutation-1' },
      body: JSON.stringify({ query: 'mutation NoKey { createCategory(input: { name: "Logged" }) { id } }' }),
    });
    expect(res.status).toBe(401);
    await settle();
    expect(linesOf('log-mutation-1')).toEqual([
      expect.objectContaining({
        status: 401,
        graphql: { operationName: 'NoKey', operationType: 'mutation', errorCodes: ['UNAUTHENTICATED'] },
        msg: expect.stringMatching(/ 401 [\d.]+ ms mutation NoKey errors: UNAUTHENTICATED$/),
      }),
    ]);
  });

  it('writes one line for a REST request, with credentials redacted', async () => {
    const res = await fetch(`${server.url}/pets/999?token=abc&x=1`, { headers: { 'x-request-id': 'log-rest-1' } });
    expect(res.status).toBe(404);
    await settle();
    const mine = linesOf('log-rest-1');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ method: 'GET', url: '/pets/999?token=[REDACTED]&x=1', status: 404 });
  });

  it('logs API keys created and revoked (id, name, scopes), and never a key', async () => {
    const id = lines().find((l) => l.msg.endsWith('"logged" created'))?.apiKey?.id;
    expect(id).toMatch(/^\d+$/);
    const revoked = await runApiKeyCli(['revoke', id!], { PGLITE_DATA_DIR: path.join(dataDir, 'data') });
    expect(revoked.code).toBe(0);
    await settle();
    expect(lines().filter((l) => l.apiKey)).toEqual([
      expect.objectContaining({
        msg: `API key ${id} "logged" created`,
        apiKey: expect.objectContaining({ id, name: 'logged', scopes: ['orders:read'] }),
      }),
      expect.objectContaining({ msg: `API key ${id} "logged" revoked`, apiKey: expect.objectContaining({ id }) }),
    ]);
    expect(server.output.join('\n')).not.toContain(key);
    expect(server.output.join('\n')).not.toContain(key.slice(12));
  });

  // Last: it stops the server above, and reopens its data directory (fast) with LOG_FORMAT=pretty.
  it('writes readable, coloured lines instead of JSON with LOG_FORMAT=pretty', async () => {
    expect(await server.stop()).toBe(0);
    server = await startServerProcess({ PGLITE_DATA_DIR: path.join(dataDir, 'data'), LOG_FORMAT: 'pretty' });
    await fetch(`${server.url}/pets/999`);
    expect(await server.stop()).toBe(0);
    const ready = server.output.find((l) => l.includes('petstore gateway ready'));
    expect(ready).toContain(`${String.fromCharCode(27)}[`); // coloured (ANSI escapes)
    expect(() => JSON.parse(ready!)).toThrow();
    expect(server.output.some((l) => /GET \/pets\/999 404 [\d.]+ ms/.test(l))).toBe(true);
  });
});
