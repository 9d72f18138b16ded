import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { adminKeyFor, startServerProcess, type ServerProcess } from '../helpers/server-process';

const gql = async (url: string, query: string, headers: Record<string, string> = {}) =>
  (await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  }).then((r) => r.json())) as { data?: Record<string, any>; errors?: unknown[] };

jest.setTimeout(120_000);

describe('the service as a process on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-proc-'));
  /** The restarted server of the first test, still running for the second. */
  let running: ServerProcess | undefined;
  afterAll(async () => {
    await running?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps data across a restart, and stops cleanly on SIGTERM', async () => {
    // A migrated database holding an admin key (a copy of the run's template): creating and
    // migrating a new one is the start-up test's subject (test/http/startup.test.ts).
    const admin = await adminKeyFor({ PGLITE_DATA_DIR: dataDir });
    const first = await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    const created = await gql(first.url, 'mutation { createCategory(input: { name: "Persisted" }) { id } }', admin);
    const id = created.data?.createCategory.id as string;
    expect(id).toMatch(/^\d+$/);
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.output.some((line) => JSON.parse(line).msg === 'stopped')).toBe(true);

    running = await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    const read = await gql(running.url, `{ category(id: "${id}") { name } }`);
    expect(read.data?.category).toEqual({ name: 'Persisted' });
    const migrations = running.output.map((l) => JSON.parse(l)).filter((l) => l.msg === 'petstore gateway ready');
    expect(migrations).toHaveLength(1);
  });

  it('refuses to open a data directory that a running server holds', async () => {
    // The server the first test restarted (a server of its own when this test runs alone).
    running ??= await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    await expect(startServerProcess({ PGLITE_DATA_DIR: dataDir })).rejects.toThrow(/in use by another process/);
    expect(await running.stop()).toBe(0);
  });

  it('after a server is killed, says its lock outlives it for 15 s, and starts once it has expired', async () => {
    // The server of the test above has stopped; this one is killed.
    await (await startServerProcess({ PGLITE_DATA_DIR: dataDir })).stop('SIGKILL');
    // The lock as a server killed a moment ago leaves it (refreshed every 5 s while it lived).
    const lock = `${fs.realpathSync(dataDir)}.lock`;
    const now = new Date();
    fs.utimesSync(lock, now, now);
    await expect(startServerProcess({ PGLITE_DATA_DIR: dataDir })).rejects.toThrow(
      /killed .* leaves its lock .*\.lock behind for 15 s after its last refresh: start again then/,
    );
    // 15 s later (as the lock's age says): taken over, the data intact.
    const past = new Date(Date.now() - 16_000);
    fs.utimesSync(lock, past, past);
    running = await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    expect((await gql(running.url, '{ categories { totalCount } }')).errors).toBeUndefined();
    expect(await running.stop()).toBe(0);
    running = undefined;
  });

  it('stops at start with a message naming a bad variable', async () => {
    await expect(startServerProcess({ PGLITE_DATA_DIR: dataDir, DB_POOL_SIZE: 'many' })).rejects.toThrow(
      /DB_POOL_SIZE/,
    );
  });
});

describe('graceful shutdown', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-drain-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('lets a request that is in flight at SIGTERM finish, then exits cleanly', async () => {
    const server = await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    const { port } = new URL(server.url);
    const body = JSON.stringify({ query: '{ categories { totalCount } }' });
    // A request whose body is still arriving when the signal comes: in flight, not idle.
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/graphql',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    const reply = await answer;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ data: { categories: { totalCount: 0 } } });
    // No second signal (that would force an immediate exit): wait for the first one to finish.
    const code = server.child.exitCode ?? (await new Promise((resolve) => server.child.once('exit', resolve)));
    expect(code).toBe(0);
    const lines = server.output.map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['shutting down: finishing in-flight requests', 'stopped']),
    );
  });
});
