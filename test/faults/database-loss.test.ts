/**
 * Issue 10, item 2 (at run time): losing PostgreSQL never leaves the service stuck. Needs a
 * PostgreSQL server (TEST_DATABASE_URL, as CI sets it); the embedded database cannot be lost.
 *
 * 1. Every backend of the gateway terminated under 50 concurrent writers: the service recovers by
 *    itself within seconds, and the stock invariant holds (stock + ordered = initial, every
 *    acknowledged order stored).
 * 2. The database stops answering (a proxy that forwards nothing): every request gets 503
 *    UNAVAILABLE within the configured bounds instead of hanging, /readyz 503 within its timeout;
 *    then recovery when the database answers again.
 */
import { Client } from 'pg';
import {
  PLACE_ORDER,
  gql,
  petInStock,
  startGateway,
  type GatewayFixture,
  type Reply,
} from '../helpers/gateway-fixture';
import { pollUntil } from '../helpers/poll';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { usingPostgres } from '../helpers/test-database';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';

jest.setTimeout(180_000);

const describeWithPostgres = describeIf(usingPostgres(), NEEDS_POSTGRES);

async function sql<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The service answers: readiness, a GraphQL read and the REST read of the pet. */
async function answers(url: string, petId: string): Promise<boolean> {
  try {
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) });
    const read = await gql(url, 'query($id: ID!) { pet(id: $id) { id } }', { id: petId });
    const rest = await fetch(`${url}/pets/${petId}`, { signal: AbortSignal.timeout(3_000) });
    return ready.status === 200 && read.data?.pet?.id === petId && rest.status === 200;
  } catch {
    return false;
  }
}

const codeOf = (reply: Reply) => reply.errors?.[0]?.extensions.code ?? 'OK';

describeWithPostgres('losing PostgreSQL', () => {
  let fixture: GatewayFixture | undefined;
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    await proxy?.close();
    fixture = undefined;
    proxy = undefined;
  });

  it('recovers by itself after every backend is terminated under 50 writers; the stock adds up', async () => {
    fixture = await startGateway({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    const { url } = fixture.server;
    const databaseUrl = fixture.databaseUrl!;
    const initial = 100_000;
    const petId = await petInStock(url, fixture.admin, initial);

    let writing = true;
    const replies: Reply[] = [];
    const writers = Array.from({ length: 50 }, async () => {
      while (writing) {
        try {
          replies.push(await gql(url, PLACE_ORDER, { p: petId }, fixture!.admin));
        } catch (error) {
          replies.push({
            status: 0,
            errors: [{ message: String(error), extensions: { code: 'NO ANSWER', status: 0 } }],
          });
        }
      }
    });
    await pollUntil(
      async () => replies.length,
      (n) => n >= 100,
      30_000,
    );
    const [{ name }] = await sql<{ name: string }>(databaseUrl, 'SELECT current_database() AS name');
    const terminate = () =>
      sql(
        databaseUrl,
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
    const terminated = await terminate();
    expect(terminated.length).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 200));
    await terminate();
    await new Promise((r) => setTimeout(r, 500));
    writing = false;
    await Promise.all(writers);

    // Recovered without a restart.
    expect(
      await pollUntil(
        () => answers(url, petId),
        (ok) => ok,
        20_000,
      ),
    ).toBe(true);
    const outcomes = new Set(replies.map(codeOf));
    // Every request got an answer: placed, or refused as the outage it was (never hanging, never INTERNAL).
    expect([...outcomes].filter((c) => c !== 'OK' && c !== 'UNAVAILABLE')).toEqual([]);
    expect(replies.filter((r) => codeOf(r) === 'UNAVAILABLE').every((r) => r.status === 503)).toBe(true);

    const acknowledged = replies.filter((r) => codeOf(r) === 'OK').map((r) => BigInt(r.data!.placeOrder.id));
    const [stock] = await sql<{ quantity: number }>(
      databaseUrl,
      'SELECT quantity FROM inventory_items WHERE pet_id = $1',
      [petId],
    );
    const [ordered] = await sql<{ total: string; count: string }>(
      databaseUrl,
      'SELECT COALESCE(SUM(quantity), 0) AS total, COUNT(*) AS count FROM orders WHERE pet_id = $1',
      [petId],
    );
    expect(stock!.quantity + Number(ordered!.total)).toBe(initial);
    const stored = await sql<{ id: string }>(databaseUrl, 'SELECT id FROM orders WHERE id = ANY($1::bigint[])', [
      acknowledged.map(String),
    ]);
    expect(stored).toHaveLength(acknowledged.length);
    // And writes work again.
    expect(codeOf(await gql(url, PLACE_ORDER, { p: petId }, fixture.admin))).toBe('OK');
  });

  it('answers writes 503 UNAVAILABLE while the database is read-only (a failover in progress), then recovers', async () => {
    fixture = await startGateway({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    const { url } = fixture.server;
    const databaseUrl = fixture.databaseUrl!;
    const petId = await petInStock(url, fixture.admin, 100);
    const database = new URL(databaseUrl).pathname.slice(1);
    // What a gateway meets while its address still leads to a server that became a standby, or to a
    // primary being switched over: every write refused with SQLSTATE 25006.
    await sql(databaseUrl, `ALTER DATABASE "${database}" SET default_transaction_read_only = on`);
    await sql(
      databaseUrl,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    try {
      // Reads go on (the pool's new sessions are read-only: the terminated ones are replaced).
      const read = await pollUntil(
        () => gql(url, 'query($id: ID!) { pet(id: $id) { id } }', { id: petId }),
        (reply) => codeOf(reply) === 'OK',
        20_000,
      );
      expect(codeOf(read)).toBe('OK');
      const order = await gql(url, PLACE_ORDER, { p: petId }, fixture.admin);
      expect(codeOf(order)).toBe('UNAVAILABLE');
      expect(order.status).toBe(503);
      const category = await gql(
        url,
        'mutation { createCategory(input: { name: "Read-only" }) { id } }',
        {},
        fixture.admin,
      );
      expect(codeOf(category)).toBe('UNAVAILABLE');
      expect(category.status).toBe(503);
    } finally {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('SET default_transaction_read_only = off');
        await client.query(`ALTER DATABASE "${database}" RESET default_transaction_read_only`);
      } finally {
        await client.end();
      }
    }
    await sql(
      databaseUrl,
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    const back = await pollUntil(
      () => gql(url, PLACE_ORDER, { p: petId }, fixture!.admin),
      (reply) => codeOf(reply) === 'OK',
      20_000,
    );
    expect(codeOf(back)).toBe('OK');
  });

  it('answers 503 UNAVAILABLE while the server refuses its logins (a role locked, a rotated password), then recovers', async () => {
    const role = `gateway_${Date.now()}`;
    const admin = process.env.TEST_DATABASE_URL!;
    await sql(admin, `CREATE ROLE ${role} LOGIN SUPERUSER`);
    try {
      fixture = await startGateway(
        { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
        {
          databaseUrl: (url) => {
            const u = new URL(url);
            u.username = role;
            return u.toString();
          },
        },
      );
      const { url } = fixture.server;
      const petId = await petInStock(url, fixture.admin, 100);
      await sql(admin, `ALTER ROLE ${role} NOLOGIN`);
      await sql(admin, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
      // The terminated connections' own failures are UNAVAILABLE already; the new ones are refused.
      const refused = await pollUntil(
        () => gql(url, PLACE_ORDER, { p: petId }, fixture!.admin),
        (reply) => codeOf(reply) !== 'UNAVAILABLE',
        2_000,
      );
      expect(codeOf(refused)).toBe('UNAVAILABLE');
      expect(refused.status).toBe(503);
      const read = await gql(url, 'query($id: ID!) { pet(id: $id) { id } }', { id: petId });
      expect(read.errors?.[0]?.extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });

      await sql(admin, `ALTER ROLE ${role} LOGIN`);
      const back = await pollUntil(
        () => gql(url, PLACE_ORDER, { p: petId }, fixture!.admin),
        (reply) => codeOf(reply) === 'OK',
        20_000,
      );
      expect(codeOf(back)).toBe('OK');
    } finally {
      await fixture?.dispose();
      fixture = undefined;
      await sql(admin, `DROP ROLE IF EXISTS ${role}`);
    }
  });

  it('answers 503 UNAVAILABLE within its bounds while the database does not answer, then recovers', async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    fixture = await startGateway(
      {
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DB_CONNECT_TIMEOUT_MS: '1000',
        DB_STATEMENT_TIMEOUT_MS: '2000',
        READINESS_TIMEOUT_MS: '1000',
      },
      { databaseUrl: (url) => proxy!.via(url) },
    );
    const { url } = fixture.server;
    const petId = await petInStock(url, fixture.admin, 1_000);
    expect(await answers(url, petId)).toBe(true);

    proxy.blackhole();
    const [ready, read, rest, order] = await Promise.all([
      fetch(`${url}/readyz`),
      gql(url, 'query($id: ID!) { pet(id: $id) { id name } }', { id: petId }),
      fetch(`${url}/pets/${petId}`),
      gql(url, PLACE_ORDER, { p: petId }, fixture.admin),
    ]);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { database: string } }).checks.database).toBe('unavailable');
    // A read with a nullable root field answers data { pet: null }: non-null data is 200 (README,
    // the HTTP status rule), its error says UNAVAILABLE 503; a mutation answers data null: 503.
    expect(read.status).toBe(200);
    expect(read.errors?.[0]?.extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('2');
    expect(await rest.json()).toEqual({ code: 'UNAVAILABLE', message: expect.any(String), status: 503 });
    expect(order.status).toBe(503);
    expect(codeOf(order)).toBe('UNAVAILABLE');

    await proxy.restore();
    expect(
      await pollUntil(
        () => answers(url, petId),
        (ok) => ok,
        20_000,
      ),
    ).toBe(true);
    expect(codeOf(await gql(url, PLACE_ORDER, { p: petId }, fixture.admin))).toBe('OK');
  });
});
