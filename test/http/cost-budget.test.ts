/**
 * Fair use by cost (RATE_LIMIT_COST_BUDGET, docs/cost-limits.md), through real server processes:
 * operations charged their cost in points, `extensions.cost` and RateLimit-* headers on every
 * answer, an operation that does not fit refused before it runs (a mutation that does not happen),
 * batches charged as a whole, per-scope budgets, and one budget shared by two processes through
 * Redis (skipped without TEST_REDIS_URL), with the in-memory fallback when Redis is away.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeNodeId } from '../../src/common/node-ids';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { connectWs, subscribe, until } from '../helpers/ws-client';

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

// (2 + 1.5 x (2 + 1.5 x (1 + 1))) x 20 = 190 points under the cost model (limits.ts).
const PETS_20 = '{ pets(first: 20) { nodes { id name } } }';
// (2 + 1.5 x (2 + 1.5 x 1)) x 10 = 72.5, charged 73.
const PETS_10 = '{ pets(first: 10) { nodes { id } } }';

describe('the cost budget (one process)', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({
      GRAPHQL_MAX_COST: '200',
      RATE_LIMIT_COST_BUDGET: '200',
      RATE_LIMIT_COST_BUDGET_BY_SCOPE: 'admin=300',
      RATE_LIMIT_WINDOW_MS: '600000',
    });
  }, 300_000);
  afterAll(async () => gateway?.dispose());

  it('charges an operation its cost and says so in extensions.cost and the RateLimit headers', async () => {
    const first = await post(gateway.server.url, { query: '{ __typename }' });
    expect(first.status).toBe(200);
    expect(first.body.extensions.cost).toMatchObject({ requested: 1, limit: 200, remaining: 199 });
    expect(first.body.extensions.cost.resetSeconds).toBeGreaterThan(0);
    expect(first.headers.get('ratelimit-limit')).toBe('200');
    expect(first.headers.get('ratelimit-remaining')).toBe('199');
    const second = await post(gateway.server.url, { query: PETS_10 });
    expect(second.body.extensions.cost).toMatchObject({ requested: 73, remaining: 126 });
  });

  it('gives a scope its own budget (an admin key has more)', async () => {
    const answer = await post(gateway.server.url, { query: '{ __typename }' }, gateway.admin);
    expect(answer.body.extensions.cost).toMatchObject({ requested: 1, limit: 300, remaining: 299 });
  });

  it('refuses an operation that does not fit before it runs: the mutation does not happen', async () => {
    const spend = await post(gateway.server.url, { query: PETS_20 }, gateway.admin);
    expect(spend.body.extensions.cost).toMatchObject({ requested: 190, remaining: 109 });
    const more = await post(gateway.server.url, { query: '{ pets(first: 11) { nodes { id name } } }' }, gateway.admin);
    expect(more.body.extensions.cost).toMatchObject({ requested: 105, remaining: 4 });
    // 2 + 1.5 x (1 + 1 + 1) = 6.5: 7 points, 4 left.
    const refused = await post(
      gateway.server.url,
      { query: 'mutation { createCategory(input: { name: "Ghost" }) { id name description } }' },
      gateway.admin,
    );
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.body.errors[0].message).toMatch(/costs 7 points and 4 are left; nothing was run/);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.extensions.cost).toMatchObject({ requested: 7, limit: 300, remaining: 4 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-remaining')).toBe('4');
    // Nothing ran, and nothing was spent: what is left still buys a cheaper operation.
    const after = await post(gateway.server.url, { query: '{ __typename }' }, gateway.admin);
    expect(after.body.extensions.cost).toMatchObject({ requested: 1, remaining: 3 });
    const fresh = await startGatewayReader(gateway);
    expect(fresh).not.toContain('Ghost');
  });

  it('charges a batch as a whole before any of its operations runs', async () => {
    const url = gateway.server.url;
    // The anonymous budget is partly spent by the tests above (74 + 37 points): 89 left.
    const refused = await post(url, [{ query: PETS_10 }, { query: PETS_10 }]);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-remaining')).toBe('89');
    const fits = await post(url, [{ query: PETS_10 }, { query: '{ __typename }' }]);
    expect(fits.status).toBe(200);
    expect(fits.body.map((r: any) => r.extensions.cost.requested)).toEqual([73, 1]);
    expect(fits.body[1].extensions.cost.remaining).toBe(15);
  });
});

describe('the cost budget of subscriptions', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({
      GRAPHQL_MAX_COST: '200',
      RATE_LIMIT_COST_BUDGET: '200',
      RATE_LIMIT_MAX: '100000',
      RATE_LIMIT_WINDOW_MS: '600000',
    });
  }, 300_000);
  afterAll(async () => gateway?.dispose());

  const remaining = async (): Promise<number> =>
    (await post(gateway.server.url, { query: '{ __typename }' })).body.extensions.cost.remaining;
  const STOCK = 'subscription { stockChanged { petId quantity pet { name } } }';

  it('charges a subscription its cost when it starts, to the same budget as HTTP, and refuses one that does not fit', async () => {
    const ws = connectWs(gateway.server.url);
    try {
      await ws.connected;
      let before = await remaining();
      const started = subscribe(ws, STOCK);
      // Each probe costs 1 point: what else is gone was charged to the subscription.
      let charged = 0;
      await until(async () => {
        const now = await remaining();
        charged = before - now - 1;
        before = now;
        return charged > 0;
      });
      expect(charged).toBeGreaterThan(1);
      started.unsubscribe();
      // Spend down to less than one subscription's cost, then ask for another: refused, nothing runs.
      while ((await remaining()) >= charged);
      const refused = subscribe(ws, STOCK);
      const errors = (await refused.error) as { message: string; extensions: { code: string } }[];
      expect(errors[0]!.extensions.code).toBe('RATE_LIMITED');
      expect(refused.results).toEqual([]);
    } finally {
      await ws.dispose();
    }
  }, 120_000);
});

/** The category names, read anonymously (the admin's budget is spent): 37 points. */
describe('automatic persisted queries in a batch', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({
      GRAPHQL_MAX_COST: '300',
      RATE_LIMIT_COST_BUDGET: '300',
      RATE_LIMIT_WINDOW_MS: '600000',
    });
  }, 300_000);
  afterAll(async () => gateway?.dispose());

  it('charges their cost with the rest of the batch, before any operation runs: the mutation does not happen', async () => {
    const url = gateway.server.url;
    const byHash = {
      extensions: { persistedQuery: { version: 1, sha256Hash: crypto.hash('sha256', PETS_20, 'hex') } },
    };
    // Registered by an anonymous client (190 of its own points); any caller may then send the hash.
    const registered = await post(url, { query: PETS_20, ...byHash });
    expect(registered.body.extensions.cost).toMatchObject({ requested: 190 });
    const mutation = (name: string) => ({
      query: `mutation { createCategory(input: { name: "${name}" }) { id name description } }`,
    });
    // 7 + 190 + 190 points, more than the whole budget (300): refused before anything runs.
    const tooLarge = await post(url, [mutation('Ghost'), byHash, byHash], gateway.admin);
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    const fits = await post(url, [mutation('Kept'), byHash], gateway.admin);
    expect(fits.status).toBe(200);
    expect(fits.body.map((r: any) => r.extensions.cost.requested)).toEqual([7, 190]);
    expect(fits.body.map((r: any) => r.extensions.cost.remaining)).toEqual([103, 103]);
    expect(fits.body.map((r: any) => r.errors)).toEqual([undefined, undefined]);
    // 7 + 190 points with 103 left: refused as a whole. The hash was charged on its own as it ran,
    // after the batch's charge: the mutation ran, the hash was refused, and the answer was 200.
    const refused = await post(url, [mutation('Ghost2'), byHash], gateway.admin);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.body.errors[0].message).toMatch(/this request costs 197 points and 103 are left; nothing was run/);
    const names = await startGatewayReader(gateway);
    expect(names).toContain('Kept');
    expect(names).not.toContain('Ghost');
    expect(names).not.toContain('Ghost2');
  });
});

async function startGatewayReader(gateway: GatewayFixture): Promise<string[]> {
  const answer = await post(gateway.server.url, { query: '{ categories(first: 5) { nodes { name } } }' }, {});
  return answer.body.data.categories.nodes.map((c: { name: string }) => c.name);
}

const redisUrl = process.env.TEST_REDIS_URL;

describeIf(Boolean(redisUrl), NEEDS_REDIS)('the cost budget across two processes (Redis)', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('trips on the points both processes charged together', async () => {
    const env = {
      REDIS_URL: redisUrl!,
      RATE_LIMIT_REDIS_PREFIX: `petstore-test-${crypto.randomUUID()}:`,
      GRAPHQL_MAX_COST: '200',
      RATE_LIMIT_COST_BUDGET: '200',
      RATE_LIMIT_WINDOW_MS: '60000',
    };
    for (let i = 0; i < 2; i++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cost-'));
      dirs.push(dir);
      servers.push(await startServerProcess({ ...env, PGLITE_DATA_DIR: dir }));
    }
    const answers: Answer[] = [];
    for (let i = 0; i < 3; i++) answers.push(await post(servers[i % 2]!.url, { query: PETS_10 }));
    // Each process alone charged at most 146 of 200 points: only the shared count refuses the third.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[1]!.body.extensions.cost.remaining).toBe(54);
    expect(answers[2]!.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  }, 420_000);
});

describe('the cost budget while Redis is away', () => {
  let server: ServerProcess | undefined;
  let dir: string | undefined;
  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps counting points in memory', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cost-'));
    server = await startServerProcess({
      PGLITE_DATA_DIR: dir,
      // Nothing listens on port 1: the limiter falls back to memory (http/rate-limit.ts).
      REDIS_URL: 'redis://127.0.0.1:1',
      GRAPHQL_MAX_COST: '200',
      RATE_LIMIT_COST_BUDGET: '200',
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(server.url, { query: PETS_10 })).status);
    expect(statuses).toEqual([200, 200, 429]);
  }, 240_000);
});

describe('what a client cannot leave out of its charge (issue 28, items 2 and 3)', () => {
  // (2 + 1.5 x (2 + 1.5 x (1 + 1 + (2 + 1.5 x 1)))) x 100 = 1,737.5: 1,738 points.
  const LISTED = 'query Listed { pets(first: 100) { nodes { id name category { name } } } }';
  const listedHash = crypto.createHash('sha256').update(LISTED).digest('hex');
  let gateway: GatewayFixture;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-cost-trusted-'));
    const manifest = path.join(dir, 'persisted-documents.json');
    fs.writeFileSync(manifest, JSON.stringify({ [listedHash]: LISTED }));
    gateway = await startGateway({
      NODE_ENV: 'production',
      TRUSTED_DOCUMENTS: 'enforce',
      TRUSTED_DOCUMENTS_FILE: manifest,
      RATE_LIMIT_COST_BUDGET: '20000',
      RATE_LIMIT_WINDOW_MS: '600000',
    });
  }, 300_000);
  afterAll(async () => {
    await gateway?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('item 2: charges a batch of trusted documents by hash their cost, and refuses the batch that does not fit', async () => {
    const url = gateway.server.url;
    const one = await post(url, { documentId: `sha256:${listedHash}` });
    expect(one.status).toBe(200);
    expect(one.body.extensions.cost).toMatchObject({ requested: 1738, remaining: 20000 - 1738 });
    // Ten by documentId, then ten by Apollo's persistedQuery hash: each batch is 17,380 points.
    const byId = Array.from({ length: 10 }, () => ({ documentId: listedHash }));
    const first = await post(url, byId.slice(0, 5));
    expect(first.status).toBe(200);
    expect(first.body[0].extensions.cost.remaining).toBe(20000 - 6 * 1738);
    const byPersistedHash = Array.from({ length: 10 }, () => ({
      extensions: { persistedQuery: { version: 1, sha256Hash: listedHash } },
    }));
    const refused = await post(url, byPersistedHash);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(refused.body.errors[0].message).toMatch(/this request costs 17380 points and 9572 are left/);
    // What is left still buys what fits: five more, then nothing.
    expect((await post(url, byPersistedHash.slice(0, 5))).status).toBe(200);
    expect((await post(url, byId.slice(0, 1))).status).toBe(429);
  });

  it('item 3: a variable left out costs its default value, as it runs', async () => {
    const url = gateway.server.url;
    // Full documents in enforce need the admin key; its budget is its own.
    const nested =
      'query Nested($n: Int = 100) { pets(first: $n) { nodes { id category { pets(first: $n) { nodes { id } } } } } }';
    const sent = await post(url, { query: nested, variables: { n: 100 } }, gateway.admin);
    expect(sent.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    const defaulted = await post(url, { query: nested }, gateway.admin);
    expect(defaulted.status).toBe(400);
    expect(defaulted.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(defaulted.body.data).toBeUndefined();

    // A default list is as many items as it holds: `nodes(nodeIds:)` costs what sending it costs.
    const ids = Array.from({ length: 50 }, (_, i) => encodeNodeId('Pet', BigInt(i + 1)));
    const nodes = `query Nodes($ids: [NodeID!]! = ${JSON.stringify(ids)}) { nodes(nodeIds: $ids) { nodeId } }`;
    const nodesSent = await post(url, { query: nodes, variables: { ids } }, gateway.admin);
    const nodesDefaulted = await post(url, { query: nodes }, gateway.admin);
    expect(nodesSent.status).toBe(200);
    expect(nodesDefaulted.body.extensions.cost.requested).toBe(nodesSent.body.extensions.cost.requested);
    expect(nodesDefaulted.body.extensions.cost.requested).toBeGreaterThan(50);
  });

  it('charges a batch nothing for an operation a check refuses before it runs', async () => {
    const url = gateway.server.url;
    const remaining = async (): Promise<number> =>
      (await post(url, { query: '{ __typename }' }, gateway.admin)).body.extensions.cost.remaining;
    // 1,738 points each, were they run; each is refused by a check of Apollo's pipeline instead.
    const page = 'pets(first: 100) { nodes { id name category { name } } }';
    const tooDeep = JSON.parse('['.repeat(40) + ']'.repeat(40));
    const before = await remaining();
    const batch = await post(
      url,
      [
        { query: 'subscription { stockChanged { petId quantity pet { name } } }' }, // WebSocket only
        { query: `{ ${page} }`, variables: { unused: tooDeep } }, // GRAPHQL_MAX_INPUT_DEPTH
        { query: `{ __schema { queryType { name } } ${page} }` }, // introspection is off in production
      ],
      gateway.admin,
    );
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: any) => r.data ?? null)).toEqual([null, null, null]);
    expect(batch.body.map((r: any) => r.errors[0].extensions.code)).toEqual([
      'BAD_REQUEST',
      'VALIDATION_FAILED',
      'VALIDATION_FAILED',
    ]);
    expect(batch.body.map((r: any) => r.extensions.cost.requested)).toEqual([0, 0, 0]);
    // Nothing ran and nothing was spent: only the probe's point is gone (all three were charged).
    expect(await remaining()).toBe(before - 1);
  });

  it('charges nothing for a batch sent with a method that runs nothing (OPTIONS)', async () => {
    const url = gateway.server.url;
    const remaining = async (): Promise<number> =>
      (await post(url, { query: '{ __typename }' }, gateway.admin)).body.extensions.cost.remaining;
    const page = '{ pets(first: 100) { nodes { id name category { name } } } }'; // 1,738 points
    const before = await remaining();
    const res = await fetch(`${url}/graphql`, {
      method: 'OPTIONS',
      headers: { 'content-type': 'application/json', ...gateway.admin },
      body: JSON.stringify([{ query: page }, { query: page }]),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(((await res.json()) as any).errors[0].extensions).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    // Only the probe's point is gone (the 405 was charged 3,476 points).
    expect(await remaining()).toBe(before - 1);
  });
});
