/**
 * `npm run apikey` against the embedded database: its output contract, and its refusal to open a
 * data directory that a running server holds (PGlite is single-process).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApiKeyCli, startServerProcess } from '../helpers/server-process';

describe('the API-key CLI on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cli-'));
  const env = { PGLITE_DATA_DIR: dataDir };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a key (alone on the last line), lists it, and a server accepts it until it is revoked', async () => {
    const created = await runApiKeyCli(['create', '--name', 'ops', '--scopes', 'orders:read'], env);
    expect(created.code).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);

    const listed = await runApiKeyCli(['list'], env);
    expect(listed.stdout).toMatch(/^1\tops\tpk_\S+\.\.\.\torders:read\t.*\tactive$/m);
    expect(listed.stdout).not.toContain(key);

    const ask = (url: string) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ orders { totalCount } }' }),
      });
    const server = await startServerProcess(env);
    try {
      expect((await ask(server.url)).status).toBe(200);
      // Beside the running server the CLI refuses, clearly, and changes nothing.
      const refused = await runApiKeyCli(['revoke', '1'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/in use by another process/);
      expect((await ask(server.url)).status).toBe(200);
    } finally {
      await server.stop();
    }
    expect((await runApiKeyCli(['revoke', '1'], env)).stdout).toMatch(/^revoked: 1\tops.*REVOKED/m);
    const again = await startServerProcess(env);
    try {
      expect((await ask(again.url)).status).toBe(401);
    } finally {
      await again.stop();
    }
  });

  it('explains its usage and rejects unknown scopes', async () => {
    expect((await runApiKeyCli([], env)).code).toBe(2);
    const bad = await runApiKeyCli(['create', '--name', 'x', '--scopes', 'root'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/must be among orders:read/);
  });
});
