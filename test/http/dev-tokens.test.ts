/**
 * Signing in with no identity provider (issue 31 item 6, docs/identity.md): `npm run token` prints a
 * development token that a real server process trusts with AUTH_DEV_TOKENS=true, and never in
 * production (the server refuses to start, the command refuses to sign).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScript, startServerProcess } from '../helpers/server-process';

jest.setTimeout(240_000);

const runTokenCli = (args: string[], env: Record<string, string>) =>
  runScript('src/modules/auth/dev-token.cli.js', args, env);

async function ask(url: string, query: string, token?: string) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('development tokens', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-devtok-'));
  const env = { PGLITE_DATA_DIR: path.join(dir, 'data'), AUTH_DEV_KEY_FILE: path.join(dir, 'dev-key.json') };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('signs in two customers with tokens printed by npm run token', async () => {
    const alice = await runTokenCli(['alice'], env);
    expect(alice).toMatchObject({ code: 0 });
    const aliceToken = alice.stdout.trim().split('\n').at(-1)!;
    expect(aliceToken.split('.')).toHaveLength(3);
    // The key file is the server's secret: readable by its owner only.
    expect(fs.statSync(env.AUTH_DEV_KEY_FILE).mode & 0o077).toBe(0);
    const staff = await runTokenCli(['carol', '--scopes', 'orders:read'], env);
    const staffToken = staff.stdout.trim().split('\n').at(-1)!;

    const server = await startServerProcess({ ...env, AUTH_DEV_TOKENS: 'true' });
    try {
      const me = await ask(server.url, '{ me { subject kind issuer scopes orders { totalCount } } }', aliceToken);
      expect(me.body).toEqual({
        data: {
          me: { subject: 'alice', kind: 'TOKEN', issuer: 'urn:petstore:dev', scopes: [], orders: { totalCount: 0 } },
        },
      });
      expect((await ask(server.url, '{ me { subject scopes } }', staffToken)).body.data.me).toEqual({
        subject: 'carol',
        scopes: ['orders:read'],
      });
      // A customer reads their own orders; completing stays staff's.
      expect((await ask(server.url, '{ orders { totalCount } }', aliceToken)).body).toEqual({
        data: { orders: { totalCount: 0 } },
      });
      expect((await ask(server.url, 'mutation { completeOrder(id: "1") { id } }', aliceToken)).status).toBe(403);
    } finally {
      await server.stop();
    }

    // A server without AUTH_DEV_TOKENS does not trust them.
    const plain = await startServerProcess(env);
    try {
      const refused = await ask(plain.url, '{ me { subject } }', aliceToken);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    } finally {
      await plain.stop();
    }
  });

  it('names AUTH_DEV_KEY_FILE when it holds no key (empty, edited): the command and the server, one line', async () => {
    const damaged = { ...env, AUTH_DEV_KEY_FILE: path.join(dir, 'damaged-key.json') };
    const said = /Invalid configuration:\n {2}AUTH_DEV_KEY_FILE: \S+damaged-key\.json does not hold a development key/;
    for (const content of ['', '{"kid":']) {
      fs.writeFileSync(damaged.AUTH_DEV_KEY_FILE, content);
      const cli = await runTokenCli(['alice'], damaged);
      expect(cli.code).toBe(1);
      // One line naming the setting: no SyntaxError, no stack.
      expect(cli.stderr.trim()).toMatch(new RegExp(`^${said.source}[^\\n]*$`));
      expect(cli.stdout).toBe('');
    }
    await expect(startServerProcess({ ...damaged, AUTH_DEV_TOKENS: 'true' })).rejects.toThrow(said);
  });

  it('refuses production: the server does not start, the command does not sign', async () => {
    await expect(startServerProcess({ ...env, NODE_ENV: 'production', AUTH_DEV_TOKENS: 'true' })).rejects.toThrow(
      /AUTH_DEV_TOKENS: must not be on in production/,
    );
    const cli = await runTokenCli(['alice'], { ...env, NODE_ENV: 'production' });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/AUTH_DEV_TOKENS: must not be on in production/);
    expect(cli.stdout).toBe('');
  });

  it('says how to use it', async () => {
    const usage = await runTokenCli([], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: npm run token -- SUBJECT/);
    expect((await runTokenCli(['x', '--scopes', 'root'], env)).stderr).toMatch(/unknown scope\(s\) root/);
  });

  it('signs no token for a subject every server refuses (its issuer and sub past 600 characters)', async () => {
    // `sub:urn:petstore:dev ` is 21 characters: 579 more is the longest owner an order can record.
    const longest = await runTokenCli(['x'.repeat(579)], env);
    expect(longest.code).toBe(0);
    const tooLong = await runTokenCli(['x'.repeat(580)], env);
    expect(tooLong).toMatchObject({ code: 2, stdout: '' });
    expect(tooLong.stderr).toMatch(/^SUBJECT is too long \(its issuer and sub at most 600 characters\)/);

    const server = await startServerProcess({ ...env, AUTH_DEV_TOKENS: 'true' });
    try {
      const token = longest.stdout.trim().split('\n').at(-1)!;
      const me = await ask(server.url, '{ me { subject } }', token);
      expect(me.body).toEqual({ data: { me: { subject: 'x'.repeat(579) } } });
    } finally {
      await server.stop();
    }
  });
});
