/**
 * The response cache across gateway processes on one PostgreSQL database (docs/caching.md): shared
 * through Redis, a write through one process is read at once through another, for every mutation,
 * and for the lists, counts and rule-driven changes it implies; ETags agree across processes; a
 * process that loses Redis, or its LISTEN connection (in-process cache), bypasses the cache and
 * flushes it when back, never serving an answer older than an answered write.
 * Needs PostgreSQL (TEST_DATABASE_URL) and, for the shared cache, Redis (TEST_REDIS_URL).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { describeIf, NEEDS_POSTGRES, NEEDS_REDIS } from '../helpers/describe-if';
import { startProcessPair, type ProcessPair } from '../helpers/gateway-fixture';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { usingPostgres } from '../helpers/test-database';
import { pollUntil } from '../helpers/poll';
import { connectWs, subscribe } from '../helpers/ws-client';

const redisUrl = process.env.TEST_REDIS_URL;

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] };
}

async function get(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const search = new URLSearchParams({ query, variables: JSON.stringify(variables) });
  const res = await fetch(`${url}/graphql?${search}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null } as Answer;
}

async function post(url: string, query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() } as Answer;
}

/** Everything public a write can change: the objects, the lists they are in, counts, stock and statuses. */
const CATALOGUE = `query Catalogue($c: ID!, $p: ID!) {
  category(id: $c) { name pets(first: 50) { totalCount nodes { id name status inventory { quantity status } } } }
  categories(first: 100) { totalCount nodes { id name } }
  pet(id: $p) { name status category { name } inventory { quantity status } }
  pets(first: 100, filter: { status: AVAILABLE }) { totalCount nodes { id } }
  inventoryItems(first: 100) { totalCount nodes { petId quantity status } }
  inventorySummary { status quantity }
}`;

const prefixEnv = () => ({
  RESPONSE_CACHE_TTL_S: '300',
  RESPONSE_CACHE_REDIS_PREFIX: `petstore-test-rc-${crypto.randomUUID()}:`,
  RATE_LIMIT_REDIS_PREFIX: `petstore-test-rl-${crypto.randomUUID()}:`,
  RATE_LIMIT_MAX: '10000000',
});

describeIf(usingPostgres(), NEEDS_POSTGRES)('the response cache across processes', () => {
  describeIf(Boolean(redisUrl), NEEDS_REDIS)('shared through Redis', () => {
    let pair: ProcessPair | undefined;
    let a: string;
    let b: string;
    let admin: Record<string, string>;
    const env = prefixEnv();
    const extra: ServerProcess[] = [];
    const proxies: TcpProxy[] = [];
    let ids: { c: string; p: string } = { c: '0', p: '0' };

    beforeAll(async () => {
      pair = await startProcessPair({ ...env, REDIS_URL: redisUrl! });
      [a, b] = pair.servers.map((s) => s.url) as [string, string];
      admin = pair.admin;
    });
    afterAll(async () => {
      await Promise.all(extra.map((s) => s.stop()));
      await Promise.all(proxies.map((p) => p.close()));
      await pair?.dispose();
    });

    const write = async (url: string, query: string, variables: Record<string, unknown> = {}) => {
      const reply = await post(url, query, variables, admin);
      if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
      return reply.body.data!;
    };
    /** What the database holds now: a read with a key is never served from any cache. */
    const truth = async (url = a) => (await post(url, CATALOGUE, ids, admin)).body.data;
    /** Reads through `url` until an answer comes from the cache (Age), so a later read could be stale. */
    const warm = async (url: string) => {
      await get(url, CATALOGUE, ids);
      const cached = await get(url, CATALOGUE, ids);
      expect(cached.headers.get('age')).not.toBeNull();
      return cached;
    };

    it('reads a write through one process at once through the other, for every mutation', async () => {
      const { createCategory } = await write(a, 'mutation { createCategory(input: { name: "Dogs" }) { id } }');
      const { createPet } = await write(
        a,
        'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
        {
          c: createCategory.id,
        },
      );
      ids = { c: createCategory.id, p: createPet.id };
      let order = '0';
      // Made now, deleted last: a pet and a category of their own.
      const spare = (
        await write(a, 'mutation($c: ID!) { createPet(input: { name: "Spare", categoryId: $c }) { id } }', ids)
      ).createPet.id;
      const empty = (await write(a, 'mutation { createCategory(input: { name: "Empty" }) { id } }')).createCategory.id;
      const steps: [string, (url: string) => Promise<unknown>][] = [
        ['createCategory', (u) => write(u, 'mutation { createCategory(input: { name: "Cats" }) { id } }')],
        [
          'updateCategory',
          (u) => write(u, 'mutation($c: ID!) { updateCategory(id: $c, input: { name: "Hounds" }) { id } }', ids),
        ],
        [
          'createPet',
          (u) => write(u, 'mutation($c: ID!) { createPet(input: { name: "Fido", categoryId: $c }) { id } }', ids),
        ],
        [
          'updatePet',
          (u) => write(u, 'mutation($p: ID!) { updatePet(id: $p, input: { name: "Rex II" }) { id } }', ids),
        ],
        [
          'updateInventory',
          (u) => write(u, 'mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 2 }) { quantity } }', ids),
        ],
        [
          'placeOrder',
          async (u) =>
            (order = (await write(u, 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 2 }) { id } }', ids))
              .placeOrder.id),
        ],
        ['cancelOrder', (u) => write(u, 'mutation($o: ID!) { cancelOrder(id: $o) { id } }', { o: order })],
        [
          'placeOrder again',
          async (u) =>
            (order = (await write(u, 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 2 }) { id } }', ids))
              .placeOrder.id),
        ],
        ['completeOrder', (u) => write(u, 'mutation($o: ID!) { completeOrder(id: $o) { id } }', { o: order })],
        ['setPetStatus', (u) => write(u, 'mutation($p: ID!) { setPetStatus(id: $p, status: AVAILABLE) { id } }', ids)],
        ['deletePet', (u) => write(u, 'mutation($p: ID!) { deletePet(id: $p) { id } }', { p: spare })],
        ['deleteCategory', (u) => write(u, 'mutation($c: ID!) { deleteCategory(id: $c) { id } }', { c: empty })],
      ];
      const seen: Record<string, unknown>[] = [];
      for (const [i, [name, mutate]] of steps.entries()) {
        // Alternate: write through one, read through the other.
        const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
        const before = (await warm(reader)).body.data;
        await mutate(writer);
        const after = await get(reader, CATALOGUE, ids);
        const expected = await truth(writer);
        expect({ name, data: after.body.data }).toEqual({ name, data: expected });
        expect({ name, changed: JSON.stringify(after.body.data) !== JSON.stringify(before) }).toEqual({
          name,
          changed: true,
        });
        seen.push({ name, pet: after.body.data!.pet });
      }
      // The rules moved what the mutations did not name: taking the last units turned the pet PENDING,
      // cancelling put them back (AVAILABLE), completing the second order made it SOLD.
      const statusAfter = (name: string) => (seen.find((s) => s.name === name)!.pet as { status: string }).status;
      expect([statusAfter('placeOrder'), statusAfter('cancelOrder'), statusAfter('completeOrder')]).toEqual([
        'PENDING',
        'AVAILABLE',
        'SOLD',
      ]);
    });

    it('gives the same strong ETag in every process, answers 304, and a new tag after a write', async () => {
      const first = await get(a, CATALOGUE, ids);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^W\/"/);
      const other = await get(b, CATALOGUE, ids, { 'if-none-match': etag });
      expect(other.status).toBe(304);
      await write(a, 'mutation($p: ID!) { updatePet(id: $p, input: { name: "Rex III" }) { id } }', ids);
      const changed = await get(b, CATALOGUE, ids, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.data!.pet.name).toBe('Rex III');
    });

    it('never serves, stores or marks public an answer to a request with credentials', async () => {
      await warm(b);
      const keyed = await get(b, CATALOGUE, ids, admin);
      expect(keyed.headers.get('age')).toBeNull();
      expect(keyed.headers.get('cache-control')).toBe('private, no-cache');
      const ORDERS = 'query O($p: ID!) { pet(id: $p) { orders { totalCount } } }';
      for (let i = 0; i < 2; i++) {
        const orders = await get(b, ORDERS, { p: ids.p }, admin);
        expect(orders.status).toBe(200);
        expect(orders.headers.get('age')).toBeNull();
        expect(orders.headers.get('cache-control')).toBe('private, no-cache');
      }
      // Anonymously, the same document is refused (and not cached either).
      const anonymous = await get(b, ORDERS, { p: ids.p });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('cache-control')).toBe('no-store');
    });

    it('never answers a subscriber from before the stock change it was just told of', async () => {
      const STOCK = 'query S($p: ID!) { inventory(petId: $p) { quantity status } }';
      const ws = connectWs(b);
      try {
        await ws.connected;
        const stock = subscribe<{ stockChanged: { quantity: number } }>(
          ws,
          'subscription S($p: ID!) { stockChanged(petIds: [$p]) { quantity } }',
          { p: ids.p },
        );
        const readAfterEvent = async (n: number) => {
          const [event] = (await stock.take(n)).slice(-1);
          const read = await get(b, STOCK, { p: ids.p });
          return { told: event!.data!.stockChanged.quantity, read: read.body.data!.inventory.quantity };
        };
        // A change by hand: the database tells subscribers of it, and nobody tells the cache.
        await pollUntil(
          () => get(b, STOCK, { p: ids.p }),
          (r) => r.headers.get('age') !== null,
        );
        const sql = new Client({ connectionString: pair!.databaseUrl });
        await sql.connect();
        try {
          await sql.query('UPDATE inventory_items SET quantity = quantity + 5 WHERE pet_id = $1', [ids.p]);
        } finally {
          await sql.end();
        }
        let seen = 1;
        const byHand = await readAfterEvent(seen);
        expect(byHand.read).toBe(byHand.told);
        // Writes through the other process: its event is sent at commit, before that process has
        // moved the shared generation on.
        for (let i = 0; i < 10; i++) {
          await warm(b);
          await get(b, STOCK, { p: ids.p });
          await write(
            a,
            'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }',
            {
              ...ids,
              q: 40 + i,
            },
          );
          const after = await readAfterEvent(++seen);
          expect({ i, ...after }).toEqual({ i, told: 40 + i, read: 40 + i });
        }
      } finally {
        await ws.dispose();
      }
    });

    it('reads at once a write made through a process on the same Redis that keeps no answers itself', async () => {
      // Its cache off (a rolling restart turning it on has such processes for a while; so does a
      // cost budget set on some processes only): it keeps no answers, but its writes are writes.
      const off = await startServerProcess({
        DATABASE_URL: pair!.databaseUrl,
        LOG_LEVEL: 'warn',
        ...env,
        RESPONSE_CACHE_TTL_S: '0',
        REDIS_URL: redisUrl!,
      });
      extra.push(off);
      for (const name of ['Rex by the other', 'Rex once more']) {
        await warm(b);
        await write(off.url, 'mutation($p: ID!, $n: String!) { updatePet(id: $p, input: { name: $n }) { id } }', {
          ...ids,
          n: name,
        });
        const after = await get(b, CATALOGUE, ids);
        expect(after.body.data!.pet.name).toBe(name);
        expect(after.body.data).toEqual(await truth());
      }
    });

    /** A third process on the same database and Redis, its Redis connection through a proxy the test controls. */
    const behindProxy = async (): Promise<{ url: string; proxy: TcpProxy }> => {
      const target = new URL(redisUrl!);
      const proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
      proxies.push(proxy);
      const server = await startServerProcess({
        DATABASE_URL: pair!.databaseUrl,
        LOG_LEVEL: 'warn',
        ...env,
        REDIS_URL: proxy.via(redisUrl!),
      });
      extra.push(server);
      return { url: server.url, proxy };
    };

    it('bypasses the cache in a process that lost Redis, and flushes it when Redis is back', async () => {
      const { url: c, proxy } = await behindProxy();
      await pollUntil(
        () => get(c, CATALOGUE, ids),
        (r) => r.headers.get('age') !== null,
      );
      await warm(c);
      await proxy.refuse();
      await write(a, 'mutation($p: ID!) { updatePet(id: $p, input: { name: "Rex IV" }) { id } }', ids);
      const during = await get(c, CATALOGUE, ids);
      expect(during.body.data).toEqual(await truth());
      expect(during.headers.get('age')).toBeNull();
      await proxy.restore();
      const back = await pollUntil(
        () => get(c, CATALOGUE, ids),
        (r) => r.headers.get('age') !== null,
        10_000,
      );
      expect(back.headers.get('age')).not.toBeNull();
      expect(back.body.data).toEqual(await truth());
    });

    it('holds the answer of a write made while Redis was unreachable until the other processes will see it', async () => {
      const { url: c, proxy } = await behindProxy();
      await pollUntil(
        () => get(c, CATALOGUE, ids),
        (r) => r.headers.get('age') !== null,
      );
      await warm(b);
      await proxy.refuse();
      const started = Date.now();
      const writing = write(c, 'mutation($p: ID!) { updatePet(id: $p, input: { name: "Rex V" }) { id } }', ids);
      await new Promise((resolve) => setTimeout(resolve, 700));
      await proxy.restore();
      await writing;
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
      const after = await get(b, CATALOGUE, ids);
      expect(after.body.data!.pet.name).toBe('Rex V');
      expect(after.body.data).toEqual(await truth());
    });
  });

  describe('in process, without Redis', () => {
    let pair: ProcessPair | undefined;
    let proxy: TcpProxy | undefined;
    let c: ServerProcess | undefined;
    afterAll(async () => {
      await c?.stop();
      await proxy?.close();
      await pair?.dispose();
    });

    it("drops entries on another process's write, and bypasses while its LISTEN connection is lost", async () => {
      pair = await startProcessPair({ RESPONSE_CACHE_TTL_S: '300', RATE_LIMIT_MAX: '10000000' });
      const a = pair.servers[0].url;
      const admin = pair.admin;
      const write = async (query: string, variables: Record<string, unknown> = {}) => {
        const reply = await post(a, query, variables, admin);
        if (reply.body.errors) throw new Error(JSON.stringify(reply.body.errors));
        return reply.body.data!;
      };
      const { createCategory } = await write('mutation { createCategory(input: { name: "Birds" }) { id } }');
      const { createPet } = await write(
        'mutation($c: ID!) { createPet(input: { name: "Tweety", categoryId: $c }) { id } }',
        {
          c: createCategory.id,
        },
      );
      const ids = { c: createCategory.id, p: createPet.id };
      // Its LISTEN connection (DATABASE_DIRECT_URL) through a proxy; its pool direct.
      const target = new URL(pair.databaseUrl);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      c = await startServerProcess({
        DATABASE_URL: pair.databaseUrl,
        DATABASE_DIRECT_URL: proxy.via(pair.databaseUrl),
        LOG_LEVEL: 'warn',
        RESPONSE_CACHE_TTL_S: '300',
        RATE_LIMIT_MAX: '10000000',
      });
      const read = () => get(c!.url, CATALOGUE, ids);
      const truth = async () => (await post(a, CATALOGUE, ids, admin)).body.data;
      const cached = await pollUntil(read, (r) => r.headers.get('age') !== null);
      expect(cached.headers.get('age')).not.toBeNull();

      // Another process's write reaches this one's cache over LISTEN (within milliseconds).
      await write('mutation($p: ID!) { updatePet(id: $p, input: { name: "Tweety II" }) { id } }', ids);
      const heard = await pollUntil(read, (r) => r.body.data!.pet.name === 'Tweety II', 2_000);
      expect(heard.body.data).toEqual(await truth());
      // Telling the others is not an error (each write logged one, P2010, while the NOTIFY still went).
      expect(pair.servers[0].output.filter((line) => /"level":(50|60)/.test(line))).toEqual([]);

      await pollUntil(read, (r) => r.headers.get('age') !== null);
      await proxy.refuse();
      // The loss is noticed when the connection closes; from then on, nothing comes from the cache.
      await pollUntil(read, (r) => r.headers.get('age') === null, 5_000);
      await write('mutation($p: ID!) { updatePet(id: $p, input: { name: "Tweety III" }) { id } }', ids);
      const during = await read();
      expect(during.body.data!.pet.name).toBe('Tweety III');
      expect(during.headers.get('age')).toBeNull();
      await proxy.restore();
      const back = await pollUntil(read, (r) => r.headers.get('age') !== null, 15_000);
      expect(back.body.data).toEqual(await truth());

      // A change made in the database by hand reaches the cache too: the database sends the
      // notification inside the change's own transaction. It used to come from the writing gateway
      // after its commit, so a change by hand, or a notification lost with that gateway's connection,
      // left the entry for its TTL (300 s here).
      const sql = new Client({ connectionString: pair.databaseUrl });
      await sql.connect();
      try {
        await sql.query('UPDATE categories SET name = $1 WHERE id = $2', ['Birds by hand', ids.c]);
      } finally {
        await sql.end();
      }
      const byHand = await pollUntil(read, (r) => r.body.data!.category.name === 'Birds by hand', 2_000);
      expect(byHand.body.data!.category.name).toBe('Birds by hand');
      expect(byHand.body.data).toEqual(await truth());
    });
  });
});

describeIf(Boolean(redisUrl), NEEDS_REDIS)('the response cache of processes serving different schemas', () => {
  // Starting processes is slow on a busy machine.
  jest.setTimeout(240_000);
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("never answers from another schema's entries (a rolling deploy, GRAPHQL_FEDERATION on one process only)", async () => {
    const env = { ...prefixEnv(), REDIS_URL: redisUrl! };
    const start = async (extra: Record<string, string>) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-rc-schemas-'));
      dirs.push(dir);
      const server = await startServerProcess({ ...env, PGLITE_DATA_DIR: dir, ...extra });
      servers.push(server);
      return server.url;
    };
    const [subgraph, plain] = await Promise.all([start({ GRAPHQL_FEDERATION: 'true' }), start({})]);
    const query = '{ _service { sdl } }';
    // Stored: asked until it is a hit (the first lookup of a new prefix sets the generation).
    for (let hit = false; !hit;) {
      const stored = await get(subgraph, query, {});
      expect(stored.status).toBe(200);
      hit = stored.headers.get('age') !== null;
    }
    // The schema without federation has no _service: refused, as without a cache.
    const answer = await get(plain, query, {});
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions.code).toBe('VALIDATION_FAILED');
    expect(answer.headers.get('age')).toBeNull();
  });

  it('never answers a document the process refuses from the entry of one with looser limits', async () => {
    const env = { ...prefixEnv(), REDIS_URL: redisUrl! };
    const start = async (extra: Record<string, string>) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-rc-limits-'));
      dirs.push(dir);
      const server = await startServerProcess({ ...env, PGLITE_DATA_DIR: dir, ...extra });
      servers.push(server);
      return server.url;
    };
    // The limits lowered (a restart or a rolling deploy meeting the entries in Redis).
    const [loose, strict] = await Promise.all([start({}), start({ GRAPHQL_MAX_DEPTH: '2' })]);
    const query = '{ pets(first: 1) { nodes { category { pets(first: 1) { totalCount } } } } }';
    for (let hit = false; !hit;) {
      const stored = await get(loose, query, {});
      expect(stored.status).toBe(200);
      hit = stored.headers.get('age') !== null;
    }
    const answer = await get(strict, query, {});
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(answer.headers.get('age')).toBeNull();
  });

  it('sends every answer with the Cache-Control of the process that sends it (CACHE_PUBLIC_MAX_AGE_S changed)', async () => {
    const env = { ...prefixEnv(), REDIS_URL: redisUrl! };
    const start = async (extra: Record<string, string>) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-rc-max-age-'));
      dirs.push(dir);
      const server = await startServerProcess({ ...env, PGLITE_DATA_DIR: dir, ...extra });
      servers.push(server);
      return server.url;
    };
    // Before and after a change of the setting: a process of each (a rolling deploy), or the same
    // Redis entries met by the restarted processes.
    const [before, after] = await Promise.all([start({ CACHE_PUBLIC_MAX_AGE_S: '300' }), start({})]);
    const query = '{ __typename }';
    for (let hit = false; !hit;) {
      const stored = await get(before, query, {});
      expect(stored.headers.get('cache-control')).toBe('public, max-age=300');
      hit = stored.headers.get('age') !== null;
    }
    for (let i = 0; i < 2; i++) {
      const answer = await get(after, query, {});
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-cache');
    }
  });
});
