/**
 * HTTP caching of GraphQL reads and the in-process response cache (docs/caching.md), through HTTP:
 * Cache-Control from the operation's policy, Vary, ETag and 304, the response cache's hits (Age,
 * no SQL statement), what is never cached, and invalidation by a mutation in the same process.
 * Two processes, Redis and lost channels: test/http/response-cache-processes.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { parse } from 'graphql';
import { createSchema } from '../../src/schema/schema';
import { computeCachePolicy } from '../../src/graphql/cache-policy';
import { createTestApp, createApiKey, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { freePort } from '../helpers/server-process';
import { pollUntil } from '../helpers/poll';

const PET = 'query Pet($id: ID!) { pet(id: $id) { id name status inventory { quantity } } }';
const PETS = '{ pets(first: 50) { totalCount nodes { id name status } } }';

async function get(t: TestApp, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const search = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return t.app.inject({ method: 'GET', url: `/graphql?${search}`, headers });
}

async function post(t: TestApp, body: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

const dataOf = (res: LightMyRequestResponse) => (res.json() as { data: Record<string, any> }).data;

describe('the cache policy of an operation (computed from the document once)', () => {
  let schema: Awaited<ReturnType<typeof createSchema>>;
  beforeAll(async () => {
    schema = await createSchema();
  });
  const policyOf = (source: string) => {
    const document = parse(source);
    const operation = document.definitions.find((d) => d.kind === 'OperationDefinition')!;
    return computeCachePolicy(schema, document, operation as never);
  };

  it('makes the catalogue public, and orders (even through a fragment on a public type), mutations and unknowns private', () => {
    expect(policyOf(PETS).scope).toBe('PUBLIC');
    expect(
      policyOf('{ categories { nodes { name pets { totalCount } } } inventorySummary { status quantity } }').scope,
    ).toBe('PUBLIC');
    expect(policyOf('{ __schema { types { name } } }').scope).toBe('PUBLIC');
    expect(policyOf('{ orders { totalCount } }').scope).toBe('PRIVATE');
    expect(policyOf('{ pet(id: 1) { ...P } } fragment P on Pet { orders { totalCount } }').scope).toBe('PRIVATE');
    expect(policyOf('{ node(nodeId: "x") { ... on Order { quantity } } }').scope).toBe('PRIVATE');
    expect(policyOf('mutation { deletePet(id: 1) { id } }')).toMatchObject({ scope: 'PRIVATE', write: true });
  });
});

describe('HTTP cache headers of GraphQL answers', () => {
  let db: TestDatabase;
  let t: TestApp;
  let keyed: TestApp;
  let petId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    t = await createTestApp({ database: db, env: { CACHE_PUBLIC_MAX_AGE_S: '30' } });
    // The older setting's name still sets the same value.
    keyed = await createTestApp({ database: db, env: { TRUSTED_DOCUMENTS_CACHE_MAX_AGE_S: '45' } });
    const category = dataOf(
      await post(t, { query: 'mutation { createCategory(input: { name: "Dogs" }) { id } }' }, t.admin),
    );
    petId = dataOf(
      await post(
        t,
        {
          query: 'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
          variables: { c: category.createCategory.id },
        },
        t.admin,
      ),
    ).createPet.id;
  });
  afterAll(async () => {
    await t?.close();
    await keyed?.close();
    await db?.destroy();
  });

  it('marks an anonymous public read public with CACHE_PUBLIC_MAX_AGE_S, Vary, and a weak ETag; 304 on If-None-Match', async () => {
    const first = await get(t, { query: PET, variables: { id: petId } });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('public, max-age=30');
    const vary = String(first.headers.vary).toLowerCase().split(/, */);
    expect(vary).toEqual(expect.arrayContaining(['accept', 'accept-encoding', 'authorization']));
    const etag = String(first.headers.etag);
    // Weak: the same tag goes with the identity, br and gzip bytes of the answer (RFC 9110 8.8.3.3).
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers['x-petstore-cache-policy']).toBeUndefined();
    // Another media type is another representation: another tag, and no 304 for the other's tag.
    const graphqlResponse = await get(
      t,
      { query: PET, variables: { id: petId } },
      { accept: 'application/graphql-response+json', 'if-none-match': etag },
    );
    expect(graphqlResponse.statusCode).toBe(200);
    expect(graphqlResponse.headers.etag).toMatch(/^W\/"[\w-]+"$/);
    expect(graphqlResponse.headers.etag).not.toBe(etag);
    const again = await get(t, { query: PET, variables: { id: petId } }, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // POST computes the same policy and tag (a POST is never answered 304).
    const byPost = await post(t, { query: PET, variables: { id: petId } });
    expect([byPost.headers['cache-control'], byPost.headers.etag]).toEqual(['public, max-age=30', etag]);
    expect(
      (await keyed.app.inject({ method: 'GET', url: `/graphql?query=${encodeURIComponent(PETS)}` })).headers[
        'cache-control'
      ],
    ).toBe('public, max-age=45');
  });

  it('keeps a read with credentials or a private field private, and mutations and errors no-store', async () => {
    const withKey = await get(t, { query: PET, variables: { id: petId } }, t.admin);
    expect(withKey.headers['cache-control']).toBe('private, no-cache');
    expect(withKey.headers.etag).toBeDefined();
    // A read through a key's field: private even for its tag's sake.
    const orders = await post(t, { query: `{ pet(id: ${petId}) { name orders { totalCount } } }` }, t.admin);
    expect(orders.statusCode).toBe(200);
    expect(orders.headers['cache-control']).toBe('private, no-cache');
    const refused = await post(t, { query: '{ orders { totalCount } }' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
    const mutation = await post(
      t,
      { query: `mutation { setPetStatus(id: ${petId}, status: AVAILABLE) { id } }` },
      t.admin,
    );
    expect(mutation.headers['cache-control']).toBe('no-store');
    expect(mutation.headers.etag).toBeUndefined();
    const bad = await get(t, { query: PET, variables: { id: 'nope' } });
    expect(bad.headers['cache-control']).toBe('no-store');
  });

  it('answers each Accept header with its own content type, however headers alternate (negotiated once per header)', async () => {
    const accepts: [string, RegExp | number][] = [
      ['application/graphql-response+json', /^application\/graphql-response\+json/],
      ['application/json', /^application\/json; charset=utf-8$/],
      ['*/*', /^application\/json; charset=utf-8$/],
      ['application/json;q=0.5, application/graphql-response+json', /^application\/graphql-response\+json/],
      ['text/plain', 406],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [accept, expected] of round === 0 ? accepts : [...accepts].reverse()) {
        const res = await post(t, { query: '{ __typename }' }, { accept });
        if (typeof expected === 'number') expect([accept, res.statusCode]).toEqual([accept, expected]);
        else expect([accept, res.headers['content-type']]).toEqual([accept, expect.stringMatching(expected)]);
      }
    }
  });

  it('gives refusals before Apollo (bad JSON, a body type not JSON) the same Vary as every answer', async () => {
    for (const [type, payload] of [
      ['application/json', '{"query":'],
      ['text/plain', '{ __typename }'],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': type! }, payload });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      const vary = String(res.headers.vary).toLowerCase().split(/, */);
      expect([type, vary]).toEqual([type, expect.arrayContaining(['accept', 'accept-encoding', 'authorization'])]);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it("gives Apollo's own refusals of a request's shape no-store too (GET is what caches keep)", async () => {
    const refusals: [string, () => Promise<LightMyRequestResponse>][] = [
      ['GET variables not JSON', () => t.app.inject({ url: '/graphql?query=%7B__typename%7D&variables=%7Bbad' })],
      ['GET query twice', () => t.app.inject({ url: '/graphql?query=%7B__typename%7D&query=%7B__typename%7D' })],
      ['GET extensions not an object', () => t.app.inject({ url: '/graphql?query=%7B__typename%7D&extensions=5' })],
      [
        'GET with a body type',
        () => t.app.inject({ url: '/graphql?query=%7B__typename%7D', headers: { 'content-type': 'text/plain' } }),
      ],
      ['POST a JSON string', () => post(t, 'x')],
      ['POST a query that is not a string', () => post(t, { query: 5 })],
      ['POST variables as a string', () => post(t, { query: '{ __typename }', variables: '{' })],
      ['POST operationName not a string', () => post(t, { query: '{ __typename }', operationName: 5 })],
    ];
    for (const [name, send] of refusals) {
      const res = await send();
      expect([name, res.statusCode >= 400, res.headers['cache-control']]).toEqual([name, true, 'no-store']);
    }
  });

  it('sends no-cache (revalidate every time) for public reads when CACHE_PUBLIC_MAX_AGE_S is 0, the default', async () => {
    const plain = await createTestApp({ database: db });
    try {
      const res = await get(plain, { query: PETS });
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.etag).toBeDefined();
      expect(res.headers.age).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('the in-process response cache (RESPONSE_CACHE_TTL_S)', () => {
  let t: TestApp;
  let petId: string;
  let categoryId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { RESPONSE_CACHE_TTL_S: '60', CACHE_PUBLIC_MAX_AGE_S: '10' } });
    categoryId = dataOf(
      await post(t, { query: 'mutation { createCategory(input: { name: "Cats" }) { id } }' }, t.admin),
    ).createCategory.id;
    petId = dataOf(
      await post(
        t,
        {
          query: 'mutation($c: ID!) { createPet(input: { name: "Tom", categoryId: $c }) { id } }',
          variables: { c: categoryId },
        },
        t.admin,
      ),
    ).createPet.id;
    await post(
      t,
      { query: `mutation { updateInventory(petId: ${petId}, input: { quantity: 1 }) { quantity } }` },
      t.admin,
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a repeated anonymous read from the cache: Age, the same ETag, no SQL statement', async () => {
    const first = await get(t, { query: PET, variables: { id: petId } });
    expect(first.headers.age).toBeUndefined();
    // On PostgreSQL the setup's writes reach this process's LISTEN a moment after they answered, and
    // each one empties the cache, as it must: count statements only once a read has been a hit.
    // A hit that lasts: each setup write is heard back over LISTEN (its NOTIFY, its store event) a
    // moment after it answered, and one heard after a first hit empties the cache once more.
    const { hit } = await pollUntil(
      async () => {
        const before = await get(t, { query: PET, variables: { id: petId } });
        await new Promise((r) => setTimeout(r, 250));
        const after = await get(t, { query: PET, variables: { id: petId } });
        return { hit: after, lasting: before.headers.age !== undefined && after.headers.age !== undefined };
      },
      (r) => r.lasting,
    );
    expect(hit.headers.age).toMatch(/^\d+$/);
    t.sql.reset();
    const replies = [];
    for (let i = 0; i < 20; i++) replies.push(await get(t, { query: PET, variables: { id: petId } }));
    // Statements of this read, if any (the admin key's lastUsedAt write of the setup may land now).
    const reads = () => t.sql.statements.filter((q) => !/"api_keys"/.test(q));
    expect(reads()).toEqual([]);
    for (const r of replies) {
      expect(r.statusCode).toBe(200);
      expect(r.headers.age).toMatch(/^\d+$/);
      expect(r.headers.etag).toBe(first.headers.etag);
      expect(r.headers['cache-control']).toBe('public, max-age=10');
      expect(r.body).toBe(first.body);
    }
    const notModified = await get(
      t,
      { query: PET, variables: { id: petId } },
      { 'if-none-match': String(first.headers.etag) },
    );
    expect(notModified.statusCode).toBe(304);
    expect(reads()).toEqual([]);
    // The same request by POST is the same entry.
    const byPost = await post(t, { query: PET, variables: { id: petId } });
    expect(byPost.headers.age).toBeDefined();
    expect(reads()).toEqual([]);
  });

  it('keys by everything the answer depends on: variables, operation name, Accept', async () => {
    await get(t, { query: PETS });
    const other = await get(t, { query: PETS }, { accept: 'application/json' });
    expect(other.headers.age).toBeUndefined();
    expect(other.headers['content-type']).toMatch(/^application\/json/);
    const graphqlResponse = await get(t, { query: PETS }, { accept: 'application/graphql-response+json' });
    expect(graphqlResponse.headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    const otherVariables = await get(t, { query: PET, variables: { id: '999999' } });
    expect(otherVariables.headers.age).toBeUndefined();
    expect(dataOf(otherVariables).pet).toBeNull();
  });

  it('keys a request nested too deep to write as a key by not caching it: the input limit answers, never a 500', async () => {
    // Deeper than JSON.stringify's stack: the key was computed before the input-depth check (a 500 INTERNAL).
    const deep = `${'['.repeat(20_000)}1${']'.repeat(20_000)}`;
    for (const [field, status] of [
      ['variables', 400],
      ['extensions', 200],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: `{"query":"{ __typename }","${field}":{"zz":${deep}}}`,
      });
      expect(res.statusCode).toBe(status);
      if (status === 400) expect(res.json().errors[0].message).toMatch(/deeper than 32 levels/);
      else expect(dataOf(res)).toEqual({ __typename: 'Query' });
      expect(res.headers.age).toBeUndefined();
    }
  });

  it('never serves or stores an answer for a request with credentials (a key, any Authorization header)', async () => {
    const key = await createApiKey(t, ['orders:read']);
    await get(t, { query: PET, variables: { id: petId } }, key);
    t.sql.reset();
    const again = await get(t, { query: PET, variables: { id: petId } }, key);
    expect(again.headers.age).toBeUndefined();
    expect(again.headers['cache-control']).toBe('private, no-cache');
    expect(t.sql.count).toBeGreaterThan(0);
    const bad = await get(t, { query: PET, variables: { id: petId } }, { authorization: 'Bearer nope' });
    expect(bad.statusCode).toBe(401);
  });

  it('is never stale after a mutation: the object, the lists and counts, and what the rules change', async () => {
    const LISTS = `query L($c: ID!) { category(id: $c) { pets { totalCount nodes { name status } } } inventorySummary { status quantity } }`;
    const read = async () => {
      await get(t, { query: LISTS, variables: { c: categoryId } });
      const cached = await get(t, { query: LISTS, variables: { c: categoryId } });
      expect(cached.headers.age).toBeDefined();
      return dataOf(cached);
    };
    const before = await read();
    expect(before.category.pets).toEqual({ totalCount: 1, nodes: [{ name: 'Tom', status: 'AVAILABLE' }] });
    await post(t, { query: `mutation { updatePet(id: ${petId}, input: { name: "Thomas" }) { id } }` }, t.admin);
    let after = dataOf(await get(t, { query: LISTS, variables: { c: categoryId } }));
    expect(after.category.pets.nodes).toEqual([{ name: 'Thomas', status: 'AVAILABLE' }]);
    await read();
    // Ordering the last unit turns the pet PENDING: a change made by rule, not named by the mutation.
    await post(t, { query: `mutation { placeOrder(input: { petId: ${petId}, quantity: 1 }) { id } }` }, t.admin);
    after = dataOf(await get(t, { query: LISTS, variables: { c: categoryId } }));
    expect(after.category.pets.nodes).toEqual([{ name: 'Thomas', status: 'PENDING' }]);
    await read();
    await post(
      t,
      {
        query: 'mutation($c: ID!) { createPet(input: { name: "Felix", categoryId: $c }) { id } }',
        variables: { c: categoryId },
      },
      t.admin,
    );
    after = dataOf(await get(t, { query: LISTS, variables: { c: categoryId } }));
    expect(after.category.pets.totalCount).toBe(2);
  });
});

describe('with a cost budget (RATE_LIMIT_COST_BUDGET)', () => {
  it("shares nothing: every answer carries its caller's budget in extensions.cost", async () => {
    const t = await createTestApp({
      env: { RATE_LIMIT_COST_BUDGET: '1000000', RESPONSE_CACHE_TTL_S: '60', CACHE_PUBLIC_MAX_AGE_S: '60' },
    });
    try {
      const first = await get(t, { query: PETS });
      expect(first.statusCode).toBe(200);
      expect((first.json() as { extensions?: { cost?: unknown } }).extensions?.cost).toBeDefined();
      expect(first.headers['cache-control']).toBe('private, no-cache');
      const again = await get(t, { query: PETS });
      expect(again.headers.age).toBeUndefined();
      expect(again.headers['cache-control']).toBe('private, no-cache');
    } finally {
      await t.close();
    }
  });
});

describe('response cache metrics', () => {
  it('counts hits, misses and invalidations, and reports entries and bytes', async () => {
    const port = await freePort();
    const t = await createTestApp({ env: { RESPONSE_CACHE_TTL_S: '60', METRICS_PORT: String(port) } });
    const scrape = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
      return {
        hits: value('response_cache_hits_total'),
        misses: value('response_cache_misses_total'),
        invalidations: value('response_cache_invalidations_total'),
        entries: value('response_cache_entries'),
        bytes: value('response_cache_bytes'),
      };
    };
    try {
      const start = await scrape();
      for (let i = 0; i < 3; i++) await get(t, { query: PETS });
      const warm = await scrape();
      expect(warm.hits - start.hits).toBe(2);
      expect(warm.misses - start.misses).toBe(1);
      expect(warm.entries).toBe(1);
      expect(warm.bytes).toBeGreaterThan(0);
      await post(t, { query: 'mutation { createCategory(input: { name: "Fish" }) { id } }' }, t.admin);
      const after = await scrape();
      expect(after.invalidations - warm.invalidations).toBeGreaterThanOrEqual(1);
      expect(after.entries).toBe(0);
    } finally {
      await t.close();
    }
  });
});

describe('the in-process response cache and changes made in the database by hand', () => {
  it('drops what a DELETE or a TRUNCATE of the catalogue removed, at once', async () => {
    const t = await createTestApp({ env: { RESPONSE_CACHE_TTL_S: '300' } });
    try {
      const COUNTS = '{ categories(first: 10) { totalCount } pets(first: 10) { totalCount } }';
      const counts = async () => dataOf(await get(t, { query: COUNTS }));
      const cached = async () =>
        pollUntil(
          () => get(t, { query: COUNTS }),
          (r) => r.headers.age !== undefined,
        );
      const create = async () => {
        const { createCategory } = dataOf(
          await post(t, { query: 'mutation { createCategory(input: { name: "Cats" }) { id } }' }, t.admin),
        );
        await post(
          t,
          {
            query: 'mutation($c: ID!) { createPet(input: { name: "Tom", categoryId: $c }) { id } }',
            variables: { c: createCategory.id },
          },
          t.admin,
        );
      };
      const byHand = async (...sql: string[]) => {
        await create();
        expect(dataOf(await cached())).toEqual({ categories: { totalCount: 1 }, pets: { totalCount: 1 } });
        for (const statement of sql) await t.db.prisma.$executeRawUnsafe(statement);
        const after = await pollUntil(counts, (d) => d.categories.totalCount === 0, 2_000);
        expect({ sql, after }).toEqual({ sql, after: { categories: { totalCount: 0 }, pets: { totalCount: 0 } } });
      };
      await byHand('DELETE FROM pets', 'DELETE FROM categories');
      await byHand('TRUNCATE pets, categories CASCADE');
    } finally {
      await t.close();
    }
  });
});
