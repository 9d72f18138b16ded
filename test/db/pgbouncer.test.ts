/**
 * The gateway behind PgBouncer 1.18 (Debian's package) in transaction mode, started by the suite on a
 * free port in front of TEST_DATABASE_URL's server, with only `extra_float_digits` in
 * ignore_startup_parameters: `?pgbouncer=true` makes every statement safe there, LISTEN goes through
 * DATABASE_DIRECT_URL, and each misconfiguration is one line naming the variable to fix.
 * Real processes throughout. Skipped where PgBouncer or a PostgreSQL server is missing.
 */
import { createDatabase, MIGRATION_LOCK_KEY } from '../../src/db/database';
import { migrate, readMigrations } from '../../src/db/migrate';
import { createServices } from '../../src/modules/services';
import { describeIf } from '../helpers/describe-if';
import { Client } from 'pg';
import { gql, petInStock, PLACE_ORDER } from '../helpers/gateway-fixture';
import { mixedLoad } from '../helpers/mixed-load';
import { NEEDS_PGBOUNCER, pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../helpers/pg-servers';
import { pollUntil } from '../helpers/poll';
import { runScript, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createApiKey } from '../helpers/test-app';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';
import { connectWs, subscribe } from '../helpers/ws-client';

jest.setTimeout(120_000);

const describeWithPgBouncer = describeIf(usingPostgres() && pgbouncerAvailable, NEEDS_PGBOUNCER);

/** The name of the database at `url`. */
const nameOf = (url: string) => new URL(url).pathname.slice(1);

/** Starts the gateway and expects it to fail: its exit code and stderr lines. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const { code, stderr } = await runScript('src/main.js', [], { HOST: '127.0.0.1', PORT: '0', ...env });
  return { code, lines: stderr.trim().split('\n') };
}

describeWithPgBouncer('the gateway behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let server: ServerProcess;
  let admin: Record<string, string>;
  let petId: string;
  const started: ServerProcess[] = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL!);
    database = await createPostgresDatabase();
    server = await startServerProcess({
      DATABASE_URL: bouncer.url(nameOf(database.url)),
      DATABASE_DIRECT_URL: database.url,
      RATE_LIMIT_MAX: '10000000',
      // Long enough that only a notification (LISTEN) can make a revocation seen in time.
      API_KEY_CACHE_TTL_MS: '600000',
    });
    const db = await createDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
    try {
      admin = await createApiKey({ services: createServices(db) }, ['admin'], 'pgbouncer');
    } finally {
      await db.close();
    }
    petId = await petInStock(server.url, admin, 1_000_000);
  });

  afterAll(async () => {
    await Promise.all([server, ...started].map((s) => s?.stop('SIGKILL')));
    await database?.drop();
    await bouncer?.stop();
  });

  it('answers 32 concurrent clients mixing reads and writes without one error', async () => {
    const result = await mixedLoad(server.url, admin, petId, { concurrency: 32, iterations: 15 });
    console.info(
      `pgbouncer: ${result.requests} requests (${result.writes} writes), errors ${JSON.stringify(result.codes)}`,
    );
    expect(result.codes).toEqual({});
    expect(result.writes).toBeGreaterThan(0);
    // The pool's transactions ran with their timeouts set per transaction, not as startup parameters.
    expect(server.output.join('\n')).not.toMatch(/unsupported startup parameter|prepared statement/);
  });

  it('delivers subscription events through the LISTEN connection of DATABASE_DIRECT_URL', async () => {
    const c = connectWs(server.url, { connectionParams: { Authorization: admin.authorization } });
    const stock = subscribe(c, 'subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }', { p: [petId] });
    // Live once a change is heard; each change is another write through the pooler.
    for (let q = 10; stock.results.length === 0 && q < 100; q++) {
      const reply = await gql(
        server.url,
        'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }',
        { p: petId, q },
        admin,
      );
      expect(reply.errors).toBeUndefined();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(stock.results[0]?.data?.stockChanged).toEqual({ quantity: expect.any(Number) });
    await c.dispose();
  });

  it('refuses a revoked API key moments later: the revocation arrives by LISTEN', async () => {
    const db = await createDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
    try {
      const services = createServices(db);
      const { info, key } = await services.apiKeys.create({ name: 'to revoke', scopes: ['orders:read'] });
      const ask = async () =>
        (await gql(server.url, '{ orders { totalCount } }', {}, { authorization: `Bearer ${key}` })).status;
      expect(await ask()).toBe(200);
      // Cached now, for 10 minutes, which the gateway does only while it LISTENs for key changes: a
      // revocation made in SQL, without the notification, goes unseen.
      await db.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${info.id}`;
      expect(await ask()).toBe(200);
      await services.apiKeys.revoke(info.id);
      expect(await pollUntil(ask, (status) => status === 401)).toBe(401);
    } finally {
      await db.close();
    }
  });

  // No statement_timeout rides on a pooled session: placeOrder (one statement of a store function) was
  // bounded by the client only, answered 503 UNAVAILABLE ("retry shortly"), and placed its order on
  // the server anyway once the lock it waited for was released: a retry without Idempotency-Key
  // ordered twice.
  it('answers a placeOrder cut by DB_STATEMENT_TIMEOUT_MS 503 and places nothing, on the server too', async () => {
    const timed = await startServerProcess({
      DATABASE_URL: bouncer.url(nameOf(database.url)),
      DATABASE_DIRECT_URL: database.url,
      DB_STATEMENT_TIMEOUT_MS: '1000',
    });
    started.push(timed);
    const locker = new Client({ connectionString: database.url });
    await locker.connect();
    const counts = async () =>
      (
        await locker.query<{ orders: string; quantity: number }>(
          'SELECT (SELECT count(*) FROM orders) AS orders, (SELECT quantity FROM inventory_items WHERE pet_id = $1) AS quantity',
          [petId],
        )
      ).rows[0];
    try {
      const before = await counts();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE inventory_items IN ACCESS EXCLUSIVE MODE');
      const reply = await gql(timed.url, PLACE_ORDER, { p: petId }, admin);
      expect(reply.status).toBe(503);
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
      // The lock held a moment longer, then released: the order must not be placed after all.
      await new Promise((r) => setTimeout(r, 1_000));
      await locker.query('COMMIT');
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await counts()).toEqual(before);
    } finally {
      await locker.end();
    }
  });

  it('without ?pgbouncer=true, stops at start in one line naming the refused parameter and the fix', async () => {
    const { code, lines } = await failedStart({ DATABASE_URL: bouncer.url(nameOf(database.url), false) });
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^The server of DATABASE_URL \(.*\) refused the startup parameter statement_timeout: .*Add \?pgbouncer=true to DATABASE_URL/,
    );
  });

  it('without DATABASE_DIRECT_URL, says at start in one line what will not work and how to fix it', async () => {
    const alone = await startServerProcess({ DATABASE_URL: bouncer.url(nameOf(database.url)) });
    started.push(alone);
    const warnings = alone.output.filter((line) => line.includes('set DATABASE_DIRECT_URL to'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).msg).toMatch(
      /subscriptions are refused \(each WebSocket connection is closed with 1013 at connection_init.* set DATABASE_DIRECT_URL to the primary's own address/,
    );
    // As it says (it said subscriptions "get no events", as if they connected and stayed silent).
    const ws = connectWs(alone.url);
    expect(await ws.closed).toEqual({ code: 1013, reason: 'Event stream unavailable; try again later' });
    await ws.dispose();
    // And only that line: no error with a stack about a LISTEN connection "reconnecting" that never will.
    expect(
      alone.output.filter(
        (line) => /LISTEN|"level":(50|60)/.test(line) && !line.includes('set DATABASE_DIRECT_URL to'),
      ),
    ).toEqual([]);
    // Everything else works.
    const reply = await gql(alone.url, '{ pets(first: 1) { totalCount } }', {}, admin);
    expect(reply.errors).toBeUndefined();
  });

  it('without DATABASE_DIRECT_URL, says in that line that the in-process response cache is not used', async () => {
    const alone = await startServerProcess({
      DATABASE_URL: bouncer.url(nameOf(database.url)),
      RESPONSE_CACHE_TTL_S: '300',
    });
    started.push(alone);
    const warnings = alone.output.filter((line) => line.includes('set DATABASE_DIRECT_URL to'));
    expect(warnings).toHaveLength(1);
    // Without LISTEN no write by another process could reach it: it is bypassed for good, and says so once.
    expect(JSON.parse(warnings[0]!).msg).toMatch(/the response cache .*RESPONSE_CACHE_TTL_S.* never used.*REDIS_URL/);
    expect(
      alone.output.filter(
        (line) => /LISTEN|"level":(50|60)/.test(line) && !line.includes('set DATABASE_DIRECT_URL to'),
      ),
    ).toEqual([]);
    const read = () => fetch(`${alone.url}/graphql?query=${encodeURIComponent('{ pets(first: 1) { totalCount } }')}`);
    for (let i = 0; i < 3; i++) expect((await read()).headers.get('age')).toBeNull();
  });
});

describeWithPgBouncer('the gateway behind a pooler it was not told about', () => {
  let bouncer: PgBouncer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let server: ServerProcess;

  beforeAll(async () => {
    // A pooler that lets the session settings through (as some managed ones do) but not named statements.
    bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL!, {
      ignoreStartupParameters: 'extra_float_digits,statement_timeout,idle_in_transaction_session_timeout,options',
    });
    database = await createPostgresDatabase();
    server = await startServerProcess({
      DATABASE_URL: bouncer.url(nameOf(database.url), false),
      DATABASE_DIRECT_URL: database.url,
      RATE_LIMIT_MAX: '10000000',
    });
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
    await bouncer?.stop();
  });

  it('says once that prepared statements are dropped, naming ?pgbouncer=true, and fails no read', async () => {
    // One statement text with other values each time: identical reads of one turn would be sent
    // once (db/coalesce.ts), and a text sent a few times only may never meet a second connection.
    const read = (i: number) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'query Read($name: String!) { pets(first: 5, filter: { nameContains: $name }) { totalCount } }',
          variables: { name: `pet ${i}` },
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { errors?: unknown } }));
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => read(i)));
    expect(answers.filter((a) => a.status !== 200 || a.body.errors)).toEqual([]);
    const warnings = server.output.filter((line) => line.includes('prepared statement'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).msg).toMatch(/Add \?pgbouncer=true to DATABASE_URL/);
  });
});

// A pooler in front of a new database: what migrations do through it without DATABASE_DIRECT_URL, and
// what the start says of URLs that cannot work with it.
// Behind a transaction-mode pooler without DATABASE_DIRECT_URL, migrations lock per transaction: a
// migrate command that found a migration applied by another one meanwhile skipped it, and still said
// it had applied it ("applied 7 migration(s)" from both of two commands on a fresh database).
describeWithPgBouncer('PgBouncer in front of a new database: migrations and URL parameters', () => {
  let bouncer: PgBouncer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;

  beforeAll(async () => {
    bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL!);
    database = await createPostgresDatabase();
  });

  afterAll(async () => {
    await database?.drop();
    await bouncer?.stop();
  });

  it('each name only the migrations it applied: every one once between them', async () => {
    const env = { DATABASE_URL: bouncer.url(nameOf(database.url)) };
    const runs = await Promise.all([0, 1].map(() => runScript('src/db/migrate.cli.js', [], env)));
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const named = runs.flatMap((r) => {
      const line = r.stdout.split('\n').find((l) => l.startsWith('applied ')) ?? '';
      const [, count, names] = /^applied (\d+) migration\(s\): (.*)$/.exec(line) ?? [];
      const list = names ? names.split(', ') : [];
      expect(list).toHaveLength(Number(count ?? 0));
      return list;
    });
    const all = readMigrations().map((m) => m.name);
    expect(named.sort()).toEqual([...all].sort());
  });

  // A migrator through the pooler alone waited for the lock in one statement, holding a snapshot that
  // the lock holder's CREATE INDEX CONCURRENTLY (a migrator with DATABASE_DIRECT_URL) waits for:
  // PostgreSQL ended the index build as a deadlock, leaving it INVALID; and it waited without a word.
  it("waits for a direct migrator's CREATE INDEX CONCURRENTLY without deadlocking it, saying so once", async () => {
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const run = runScript('src/db/migrate.cli.js', [], { DATABASE_URL: bouncer.url(nameOf(database.url)) });
      // Waiting for the lock by now (PostgreSQL's deadlock_timeout is 1 s: long enough to be seen).
      await new Promise((r) => setTimeout(r, 1_500));
      await holder.query('CREATE INDEX CONCURRENTLY "pets_name_concurrently" ON "pets" ("name")');
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      const { code, stdout, stderr } = await run;
      expect(code).toBe(0);
      const output = `${stdout}\n${stderr}`;
      expect(output.match(/another process is migrating the database/g)).toHaveLength(1);
      const [index] = (
        await holder.query<{ valid: boolean }>(
          "SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = 'pets_name_concurrently'::regclass",
        )
      ).rows;
      expect(index).toEqual({ valid: true });
    } finally {
      await holder.query('DROP INDEX IF EXISTS "pets_name_concurrently"').catch(() => undefined);
      await holder.end();
    }
  });

  it('refuses a CONCURRENTLY migration (it needs a session), naming DATABASE_DIRECT_URL, and records nothing', async () => {
    const db = await createDatabase({
      kind: 'postgres',
      url: bouncer.url(nameOf(database.url)),
      pgbouncer: true,
      poolSize: 1,
    });
    try {
      const m = {
        name: '29991231000001_concurrently',
        sql: 'CREATE INDEX CONCURRENTLY "x" ON "pets" ("name");',
        checksum: 'c',
      };
      await expect(migrate(db, [...readMigrations(), m])).rejects.toThrow(
        /transaction-mode pooler: set DATABASE_DIRECT_URL/,
      );
      const rows = await db.prisma.$queryRawUnsafe<unknown[]>(
        'SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1',
        m.name,
      );
      expect(rows).toEqual([]);
    } finally {
      await db.close();
    }
  });

  // With ?pgbouncer=true the gateway sends no startup parameter of its own, so one PgBouncer refuses
  // is the URL's: the line names it and its fix, not "add ?pgbouncer=true", which the URL has.
  it('names the URL parameter PgBouncer refused and how to fix it, in one line', async () => {
    const url = new URL(bouncer.url(nameOf(database.url)));
    url.searchParams.set('options', '-c work_mem=8MB');
    const { code, stderr } = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: url.toString(),
      DATABASE_DIRECT_URL: database.url,
    });
    const lines = stderr.trim().split('\n');
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /refused the startup parameter options, which DATABASE_URL itself carries: .*Remove options from DATABASE_URL/,
    );
    expect(lines[0]).not.toMatch(/Add \?pgbouncer=true/);
  });

  it('names DATABASE_DIRECT_URL when it is the pooler, and says it must reach the primary itself', async () => {
    const name = nameOf(database.url);
    const { code, stderr } = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: bouncer.url(name),
      DATABASE_DIRECT_URL: bouncer.url(name, false),
    });
    const lines = stderr.trim().split('\n');
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^The server of DATABASE_DIRECT_URL \(.*\) refused the startup parameter statement_timeout: .*Point it at the PostgreSQL server/,
    );
  });
});
