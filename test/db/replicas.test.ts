/**
 * Read replicas with real servers: a private primary (initdb) and a streaming replica of it
 * (pg_basebackup -R -X stream) that applies WAL 2 s late (recovery_min_apply_delay), both started by
 * the suite on free ports. Reads land on the replica (counted on the servers by pg_stat_statements),
 * a caller's read right after its own write still sees it, a stopped replica costs no request, and a
 * server in the wrong role stops the start in one line. Skipped without PostgreSQL's server binaries.
 */
import crypto from 'node:crypto';
import { createDatabase } from '../../src/db/database';
import { createServices } from '../../src/modules/services';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { gql, gqlOk } from '../helpers/gateway-fixture';
import {
  freePort,
  NEEDS_PG_BINARIES,
  replicationAvailable,
  startReplicatedPair,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { pollUntil } from '../helpers/poll';
import { runScript, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createApiKey } from '../helpers/test-app';
import { refusingRedis, type FakeRedis } from '../helpers/refusing-redis';

jest.setTimeout(180_000);

const APPLY_DELAY_MS = 2_000;

/** Calls of reader statements on pets (the pet and pets queries, GET /pets/{id}) on one server. */
async function petReads(server: ReplicatedPair['primary']): Promise<number> {
  const [row] = await server.query<{ calls: string | null }>(
    `SELECT sum(calls)::text AS calls FROM pg_stat_statements
      WHERE query ILIKE '%FROM pets%' AND query NOT ILIKE '%pg_stat_statements%'`,
    [],
    'petstore',
  );
  return Number(row?.calls ?? 0);
}

describeIf(replicationAvailable, NEEDS_PG_BINARIES)('reads on a streaming replica', () => {
  let pair: ReplicatedPair;
  let server: ServerProcess;
  let writer: Record<string, string>;
  let reader: Record<string, string>;
  let petId: string;
  let metricsPort: number;

  const ok = (query: string, variables: Record<string, unknown>, headers: Record<string, string>) =>
    gqlOk(server.url, query, variables, headers);

  beforeAll(async () => {
    pair = await startReplicatedPair({ applyDelayMs: APPLY_DELAY_MS });
    await pair.primary.query('CREATE DATABASE petstore');
    await pair.primary.query('CREATE EXTENSION pg_stat_statements', [], 'petstore');
    metricsPort = await freePort();
    server = await startServerProcess({
      METRICS_PORT: String(metricsPort),
      DATABASE_URL: pair.primary.url('petstore'),
      DATABASE_REPLICA_URLS: pair.replica.url('petstore'),
      DB_REPLICA_CHECK_MS: '300',
      DB_READ_YOUR_WRITES_MS: '10000',
      RATE_LIMIT_MAX: '10000000',
    });
    const db = await createDatabase({ kind: 'postgres', url: pair.primary.url('petstore'), poolSize: 1 });
    try {
      const services = createServices(db);
      writer = await createApiKey({ services }, ['admin'], 'writer');
      reader = await createApiKey({ services }, ['admin'], 'reader');
    } finally {
      await db.close();
    }
    const { createCategory } = await ok('mutation { createCategory(input: { name: "Dogs" }) { id } }', {}, writer);
    const { createPet } = await ok(
      'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
      { c: createCategory.id },
      writer,
    );
    petId = createPet.id as string;
    // The replica has it APPLY_DELAY_MS later.
    await pollUntil(
      // Until it has applied the migrations too, the table itself is missing there.
      async () =>
        (await pair.replica.query('SELECT 1 FROM pets WHERE id = $1', [petId], 'petstore').catch(() => [])).length,
      (n) => n === 1,
      30_000,
    );
    // And until the gateway reads from it: one out at the start (its database was not there yet) is
    // taken back only once it has replayed what the primary had written by then (its apply delay).
    await pollUntil(
      async () => (await fetch(`${server.url}/readyz`)).json() as Promise<{ status: string }>,
      (body) => body.status === 'ok',
      15_000,
    );
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await pair?.stop();
  });

  it('sends the reads of a caller that did not write to the replica', async () => {
    const [onReplica, onPrimary] = [await petReads(pair.replica), await petReads(pair.primary)];
    for (let i = 0; i < 20; i++) {
      const { pet } = await ok('query($id: ID!) { pet(id: $id) { name } }', { id: petId }, reader);
      expect(pet).toEqual({ name: 'Rex' });
      expect((await fetch(`${server.url}/pets/${petId}`, { headers: reader })).status).toBe(200);
    }
    expect((await petReads(pair.replica)) - onReplica).toBeGreaterThanOrEqual(40);
    expect((await petReads(pair.primary)) - onPrimary).toBe(0);
    // The gateway's own account, by pool.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(Number(/^db_reads_total\{pool="replica-1"\} (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(40);
    expect(metrics).toMatch(/^db_pool_up\{pool="replica-1",role="replica"\} 1$/m);
    expect(metrics).toMatch(/^db_pool_connections_total\{pool="replica-1"\} [1-9]/m);
  });

  it("reads a caller's own write back at once, though the replica applies it 2 s late", async () => {
    const { createCategory } = await ok('mutation { createCategory(input: { name: "Cats" }) { id } }', {}, writer);
    const { createPet } = await ok(
      'mutation($c: ID!) { createPet(input: { name: "Fresh", categoryId: $c }) { id name category { name } } }',
      { c: createCategory.id },
      writer,
    );
    // The mutation's own answer (its category, read by the reader) and the writer's next reads come
    // from the primary...
    expect(createPet).toMatchObject({ name: 'Fresh', category: { name: 'Cats' } });
    const { pet } = await ok('query($id: ID!) { pet(id: $id) { name } }', { id: createPet.id }, writer);
    expect(pet).toEqual({ name: 'Fresh' });
    expect((await fetch(`${server.url}/pets/${createPet.id}`, { headers: writer })).status).toBe(200);
    // ...while another caller reads the replica, which does not have it yet (what makes this test able to fail).
    const other = await ok('query($id: ID!) { pet(id: $id) { name } }', { id: createPet.id }, reader);
    expect(other.pet).toBeNull();
  });

  it('loses no request when the replica stops, says degraded meanwhile, and takes it back when it returns', async () => {
    let failed = 0;
    let sent = 0;
    let running = true;
    const load = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (running) {
          sent++;
          const reply = await gql(server.url, '{ pets(first: 5) { totalCount edges { node { name } } } }', {}, reader);
          if (reply.status !== 200 || reply.errors) failed++;
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    pair.replica.stop('fast');
    const degraded = await pollUntil(
      async () =>
        (await fetch(`${server.url}/readyz`)).json() as Promise<{ status: string; checks: { replicas: string } }>,
      (body) => body.status === 'degraded',
    );
    expect(degraded.checks.replicas).toMatch(/^degraded: 1 of 1 out: replica-1/);
    await new Promise((r) => setTimeout(r, 1_000));
    running = false;
    await load;
    console.info(`replicas: ${sent} reads while the replica stopped, ${failed} failed`);
    expect(failed).toBe(0);
    expect(sent).toBeGreaterThan(8);

    // A write made while it was away: the replica comes back before it has replayed it (its apply
    // delay), and is taken back only once it has. It used to be taken back at its first answer, and
    // a reader got null for a pet that exists.
    const { createCategory } = await ok('mutation { createCategory(input: { name: "Away" }) { id } }', {}, writer);
    const { createPet } = await ok(
      'mutation($c: ID!) { createPet(input: { name: "Made while away", categoryId: $c }) { id } }',
      { c: createCategory.id },
      writer,
    );
    await pair.replica.start();
    const ready = await pollUntil(
      async () => (await fetch(`${server.url}/readyz`)).json() as Promise<{ status: string }>,
      (body) => body.status === 'ok',
      15_000,
    );
    expect(ready.status).toBe('ok');
    const before = await petReads(pair.replica);
    await ok('query($id: ID!) { pet(id: $id) { name } }', { id: petId }, reader);
    expect((await petReads(pair.replica)) - before).toBe(1);
    const made = await ok('query($id: ID!) { pet(id: $id) { name } }', { id: createPet.id }, reader);
    expect(made.pet).toEqual({ name: 'Made while away' });
  });

  it('refuses to start on a replica that is a primary, or a primary that is a standby, in one line naming the variable', async () => {
    const start = async (env: Record<string, string>) => {
      const { code, stderr } = await runScript('src/main.js', [], { HOST: '127.0.0.1', PORT: '0', ...env });
      return { code, lines: stderr.trim().split('\n') };
    };
    const promoted = await start({
      DATABASE_URL: pair.primary.url('petstore'),
      DATABASE_REPLICA_URLS: pair.primary.url('petstore'),
    });
    expect(promoted.code).toBe(1);
    expect(promoted.lines).toHaveLength(1);
    expect(promoted.lines[0]).toMatch(
      /^replica-1 of DATABASE_REPLICA_URLS \(.*\) is not a standby .*Fix DATABASE_REPLICA_URLS/,
    );
    const standby = await start({ DATABASE_URL: pair.replica.url('petstore'), DB_STARTUP_RETRY_MS: '0' });
    expect(standby.code).toBe(1);
    expect(standby.lines).toHaveLength(1);
    expect(standby.lines[0]).toMatch(/^DATABASE_URL \(.*\) is a standby .*Point DATABASE_URL at the primary/);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;

describeIf(replicationAvailable && Boolean(redisUrl), replicationAvailable ? NEEDS_REDIS : NEEDS_PG_BINARIES)(
  'read-your-writes across two gateway processes (Redis)',
  () => {
    let pair: ReplicatedPair;
    const servers: ServerProcess[] = [];
    let a: ServerProcess;
    let b: ServerProcess;
    let writer: Record<string, string>;
    let categoryId: string;
    let oomRedis: FakeRedis | undefined;

    beforeAll(async () => {
      pair = await startReplicatedPair({ applyDelayMs: APPLY_DELAY_MS });
      await pair.primary.query('CREATE DATABASE petstore');
      await pair.primary.query('CREATE EXTENSION pg_stat_statements', [], 'petstore');
      const env = {
        DATABASE_URL: pair.primary.url('petstore'),
        DATABASE_REPLICA_URLS: pair.replica.url('petstore'),
        DB_REPLICA_CHECK_MS: '300',
        DB_READ_YOUR_WRITES_MS: '10000',
        RATE_LIMIT_MAX: '10000000',
        REDIS_URL: redisUrl!,
        RATE_LIMIT_REDIS_PREFIX: `petstore-test-${crypto.randomUUID()}:`,
      };
      // One at a time: the first applies the migrations.
      a = await startServerProcess(env);
      servers.push(a);
      b = await startServerProcess(env);
      servers.push(b);
      // A third whose Redis is not there (nothing listens on port 1): it must read from the primary.
      servers.push(await startServerProcess({ ...env, REDIS_URL: 'redis://127.0.0.1:1' }));
      // A fourth whose Redis is connected but refuses every write (out of memory): no window can be
      // written, so none can be read either; it must read from the primary too.
      oomRedis = await refusingRedis();
      servers.push(await startServerProcess({ ...env, REDIS_URL: `redis://127.0.0.1:${oomRedis.port}` }));
      const db = await createDatabase({ kind: 'postgres', url: pair.primary.url('petstore'), poolSize: 1 });
      try {
        writer = await createApiKey({ services: createServices(db) }, ['admin'], 'writer');
      } finally {
        await db.close();
      }
      ({
        createCategory: { id: categoryId },
      } = await gqlOk(a.url, 'mutation { createCategory(input: { name: "Birds" }) { id } }', {}, writer));
      // Until the replica has the category (and the migrations) too.
      await pollUntil(
        async () =>
          (await pair.replica.query('SELECT 1 FROM categories WHERE id = $1', [categoryId], 'petstore').catch(() => []))
            .length,
        (n) => n === 1,
        30_000,
      );
    });

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGKILL')));
      oomRedis?.close();
      await pair?.stop();
    });

    const newPet = async (url: string, name: string, stock = 0): Promise<string> => {
      const { createPet } = await gqlOk(
        url,
        'mutation($c: ID!, $n: String!) { createPet(input: { name: $n, categoryId: $c }) { id } }',
        { c: categoryId, n: name },
        writer,
      );
      if (stock > 0)
        await gqlOk(
          url,
          'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }',
          { p: createPet.id, q: stock },
          writer,
        );
      return createPet.id as string;
    };

    it('reads a write made through one process back through the other at once', async () => {
      for (let i = 0; i < 5; i++) {
        const id = await newPet(a.url, `Tweety ${i}`);
        const { pet } = await gqlOk(b.url, 'query($id: ID!) { pet(id: $id) { name } }', { id }, writer);
        expect(pet).toEqual({ name: `Tweety ${i}` });
      }
      const petId = await newPet(a.url, 'Polly', 5);
      const { placeOrder } = await gqlOk(
        a.url,
        'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 2 }) { id } }',
        { p: petId },
        writer,
      );
      const { order, inventory } = await gqlOk(
        b.url,
        'query($o: ID!, $p: ID!) { order(id: $o) { quantity } inventory(petId: $p) { quantity } }',
        { o: placeOrder.id, p: petId },
        writer,
      );
      expect(order).toEqual({ quantity: 2 });
      expect(inventory).toEqual({ quantity: 3 });
    });

    it('does not pin an address to the primary for a mutation refused 401', async () => {
      const refused = await gql(b.url, 'mutation { createCategory(input: { name: "Nope" }) { id } }');
      expect(refused.status).toBe(401);
      const before = [await petReads(pair.replica), await petReads(pair.primary)];
      for (const server of [a, b]) await gql(server.url, '{ pets(first: 1) { nodes { name } } }');
      expect((await petReads(pair.replica)) - before[0]!).toBe(2);
      expect((await petReads(pair.primary)) - before[1]!).toBe(0);
    });

    it('reads from the primary while Redis cannot be asked: never stale', async () => {
      const id = await newPet(a.url, 'Rio');
      const { pet } = await gqlOk(servers[2]!.url, 'query($id: ID!) { pet(id: $id) { name } }', { id }, writer);
      expect(pet).toEqual({ name: 'Rio' });
      // Anyone's: the process cannot know who wrote.
      const anonymous = await gql(servers[2]!.url, 'query($id: ID!) { pet(id: $id) { name } }', { id });
      expect(anonymous.data).toEqual({ pet: { name: 'Rio' } });
    });

    it('reads from the primary while Redis refuses writes (out of memory): never stale', async () => {
      // Its reads (PTTL) still answered "no window", so a write made elsewhere was read from the
      // replica before it had replayed it.
      await pair.replica.query('SELECT pg_wal_replay_pause()');
      try {
        const id = await newPet(a.url, 'Kiwi');
        const { pet } = await gqlOk(servers[3]!.url, 'query($id: ID!) { pet(id: $id) { name } }', { id }, writer);
        expect(pet).toEqual({ name: 'Kiwi' });
      } finally {
        await pair.replica.query('SELECT pg_wal_replay_resume()');
      }
    });
  },
);
