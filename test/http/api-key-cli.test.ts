/**
 * `npm run apikey` against the embedded database: its output contract, and, beside a running server
 * (PGlite is single-process), going through that server instead of opening the data directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareDataDir, runApiKeyCli, runScript, startServerProcess } from '../helpers/server-process';

jest.setTimeout(120_000);

describe('the API-key CLI on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cli-'));
  const env = { PGLITE_DATA_DIR: dataDir };
  // A migrated database with no key yet (a copy of the run's template): creating one is the start-up
  // test's subject (test/http/startup.test.ts), not this one's.
  beforeAll(() => prepareDataDir(dataDir));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates a key (alone on the last line), lists it, and a server accepts it until it is revoked', async () => {
    const created = await runApiKeyCli(['create', '--name', 'ops', '--scopes', 'orders:read'], env);
    expect(created).toMatchObject({ code: 0 }); // on failure, shows what it wrote to stderr
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
      // Beside the running server the CLI goes through it: the revocation applies at once.
      const revoked = await runApiKeyCli(['revoke', '1'], env);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toMatch(/^revoked: 1\tops.*REVOKED/m);
      expect((await ask(server.url)).status).toBe(401);
      // A new key created beside the running server works on it straight away.
      const second = await runApiKeyCli(['create', '--name', 'beside', '--scopes', 'orders:read'], env);
      expect(second.code).toBe(0);
      const secondKey = second.stdout.trim().split('\n').at(-1)!;
      const ok = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secondKey}` },
        body: JSON.stringify({ query: '{ orders { totalCount } }' }),
      });
      expect(ok.status).toBe(200);
      // Errors come back as the CLI's own would.
      const unknown = await runApiKeyCli(['revoke', '999'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/API key 999 does not exist/);
    } finally {
      await server.stop();
    }
    // Stopped: the CLI opens the database itself, and the server started again still refuses the key.
    expect((await runApiKeyCli(['list'], env)).stdout).toMatch(/^1\tops.*REVOKED/m);
    const again = await startServerProcess(env);
    try {
      expect((await ask(again.url)).status).toBe(401);
    } finally {
      await again.stop();
    }
  });

  it('goes through a server that was paused past its lock going stale, never opening the directory beside it', async () => {
    // A server whose lock went stale without dying (a laptop asleep, SIGSTOP, a long-blocked event
    // loop) still has the data directory open: the CLI must not open it too.
    const paused = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cli-paused-'));
    prepareDataDir(paused);
    const pausedEnv = { PGLITE_DATA_DIR: paused };
    const server = await startServerProcess(pausedEnv);
    try {
      server.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, 16_500)); // past the lock's 15 s
      const creating = runApiKeyCli(['create', '--name', 'while-paused', '--scopes', 'orders:read'], pausedEnv);
      await new Promise((r) => setTimeout(r, 3_000));
      server.child.kill('SIGCONT');
      const created = await creating;
      expect(created).toMatchObject({ code: 0 });
      const key = created.stdout.trim().split('\n').at(-1)!;
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '{ orders { totalCount } }' }),
      });
      expect(res.status).toBe(200);
      expect(server.output.join('\n')).not.toMatch(/lock on .* lost/);
    } finally {
      server.child.kill('SIGCONT');
      await server.stop();
      for (const p of [paused, `${paused}.lock`, `${paused}.admin.sock`])
        fs.rmSync(p, { recursive: true, force: true });
    }
  });

  it('explains its usage and rejects unknown scopes', async () => {
    expect((await runApiKeyCli([], env)).code).toBe(2);
    const bad = await runApiKeyCli(['create', '--name', 'x', '--scopes', 'root'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/must be among orders:read/);
  });

  it('refuses bad arguments before it opens, or creates, a database', async () => {
    const fresh = path.join(dataDir, 'never-created');
    const badScope = await runApiKeyCli(['create', '--name', 'x', '--scopes', 'root'], { PGLITE_DATA_DIR: fresh });
    expect(badScope).toMatchObject({ code: 1, stderr: expect.stringMatching(/must be among orders:read/) });
    const badId = await runApiKeyCli(['revoke', 'abc'], { PGLITE_DATA_DIR: fresh });
    expect(badId).toMatchObject({ code: 1, stderr: expect.stringMatching(/ID/) });
    expect(fs.existsSync(fresh)).toBe(false);
  });

  it('answers an unknown option, or an option without its value, with a message and its usage (exit 2), never a stack', async () => {
    const fresh = path.join(dataDir, 'never-created');
    for (const args of [
      ['list', '--foo'],
      ['create', '--name'],
      ['create', '--name', 'x', '--scopes'],
    ]) {
      const result = await runApiKeyCli(args, { PGLITE_DATA_DIR: fresh });
      expect(result).toMatchObject({ code: 2, stderr: expect.stringMatching(/^(Unknown option|Option) '--/) });
      expect(result.stderr).toContain('usage: npm run apikey');
      expect(result.stderr).not.toMatch(/TypeError|\n\s+at /);
    }
    // `npm run token` too.
    for (const args of [
      ['x', '--role', 'staff'],
      ['x', '--ttl'],
    ]) {
      const result = await runScript('src/modules/auth/dev-token.cli.js', args, {
        AUTH_DEV_KEY_FILE: path.join(dataDir, 'dev-key.json'),
      });
      expect(result).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run token') });
      expect(result.stderr).not.toMatch(/TypeError|\n\s+at /);
    }
    expect(fs.existsSync(fresh)).toBe(false);
  });
});
