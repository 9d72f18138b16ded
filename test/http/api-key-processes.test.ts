/**
 * API keys across two gateway processes on one PostgreSQL database: each caches the keys it has
 * seen valid, and a revocation made by another process (the CLI) reaches both by LISTEN/NOTIFY. A
 * process that loses its LISTEN connection must stop trusting its cache. Needs a PostgreSQL server
 * (TEST_DATABASE_URL, as CI sets it); the embedded database is single-process (its CLI goes through
 * the server: test/http/api-key-cli.test.ts), so without one this suite is skipped.
 */
import { Client } from 'pg';
import { pollUntil } from '../helpers/poll';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { runApiKeyCli, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

const describeWithPostgres = describeIf(usingPostgres(), NEEDS_POSTGRES);

describeWithPostgres('API keys across gateway processes sharing one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let env: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  /** The test's own connection to the suite's database: changes "by hand", pg_stat_activity. */
  let sql: Client;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    env = database.env;
    const serverEnv = { ...env, LOG_LEVEL: 'info', RATE_LIMIT_MAX: '1000000' };
    [a, b] = await Promise.all([startServerProcess(serverEnv), startServerProcess(serverEnv)]);
    sql = new Client({ connectionString: database.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  interface Key {
    id: string;
    headers: Record<string, string>;
  }

  /** Creates a key with the CLI (a process of its own, beside the servers). */
  async function createKey(name: string): Promise<Key> {
    const created = await runApiKeyCli(['create', '--name', name, '--scopes', 'orders:read'], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    const id = /^created API key (\d+) /m.exec(created.stdout)![1]!;
    return { id, headers: { authorization: `Bearer ${lines.at(-1)}` } };
  }

  const ask = async (server: ServerProcess, key: Key): Promise<number> =>
    (
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...key.headers },
        body: JSON.stringify({ query: '{ orders { totalCount } }' }),
      })
    ).status;

  /** Revokes a key in SQL, without the notification `npm run apikey -- revoke` sends. */
  const revokeByHand = (key: Key) => sql.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);

  /** Waits (a few seconds at most) for a log line of `server`, after its first `from` lines. */
  const loggedSince = async (server: ServerProcess, from: number, msg: RegExp) =>
    pollUntil(
      async () => server.output.slice(from).some((line) => msg.test(line)),
      (seen) => seen,
    );

  it('a key revoked with the CLI is refused by every server moments later', async () => {
    const key = await createKey('shared');
    expect(await ask(a, key)).toBe(200);
    expect(await ask(b, key)).toBe(200);
    // Both have it cached: a change made without a notification goes unseen (hence the notification).
    await revokeByHand(key);
    expect(await ask(a, key)).toBe(200);
    expect(await ask(b, key)).toBe(200);
    await sql.query('UPDATE api_keys SET revoked_at = NULL WHERE id = $1', [key.id]);

    const revoked = await runApiKeyCli(['revoke', key.id], env);
    expect(revoked.code).toBe(0);
    expect(
      await pollUntil(
        () => ask(a, key),
        (status) => status === 401,
      ),
    ).toBe(401);
    expect(
      await pollUntil(
        () => ask(b, key),
        (status) => status === 401,
      ),
    ).toBe(401);
  });

  it('a server that loses its LISTEN connection stops using its cache until it listens again', async () => {
    const key = await createKey('outlived');
    expect(await ask(b, key)).toBe(200);
    await revokeByHand(key);
    expect(await ask(b, key)).toBe(200); // served from b's cache

    const from = b.output.length;
    const killed = await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'petstore-listen' AND pid <> pg_backend_pid()`,
    );
    expect(killed.rowCount).toBe(2); // one listener per server
    expect(await loggedSince(b, from, /no LISTEN connection/)).toBe(true);
    // The revocation made without a notification is seen: b reads keys from the database again.
    expect(await ask(b, key)).toBe(401);

    // It reconnects by itself; from then on it caches again, and hears revocations again.
    expect(await loggedSince(b, from, /listening again/)).toBe(true);
    const next = await createKey('after reconnection');
    expect(await ask(b, next)).toBe(200);
    await revokeByHand(next);
    expect(await ask(b, next)).toBe(200); // cached again
    // Revoking an already revoked key still notifies: the CLI flushes a revocation made by hand.
    expect((await runApiKeyCli(['revoke', next.id], env)).code).toBe(0);
    expect(
      await pollUntil(
        () => ask(b, next),
        (status) => status === 401,
      ),
    ).toBe(401);
  });

  it('stops cleanly with its listener open', async () => {
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
  });
});
