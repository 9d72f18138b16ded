/**
 * Trusted documents (TRUSTED_DOCUMENTS, src/policy/trusted-documents.ts) through the public
 * interface: documents named by hash (documentId, extensions.persistedQuery) over POST and GET,
 * enforce's refusals before parsing (and the admin exception), APQ not being a way around the list,
 * batches, subscriptions over WebSocket, allow's skipped checks, and the cache headers of GET reads.
 * The real processes (the example client's manifest, SIGHUP, a bad file at start):
 * test/http/trusted-documents-processes.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createApiKey } from '../helpers/test-app';
import { connectWs, type TestWsClient } from '../helpers/ws-client';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

const PETS = 'query Pets { pets(first: 3) { nodes { id name } } }';
const PET = 'query Pet($id: ID!) { pet(id: $id) { id name } }';
const NEW_CATEGORY = 'mutation NewCategory($name: String!) { createCategory(input: { name: $name }) { id name } }';
const ORDERS = 'query Orders { orders { totalCount } }';
const STOCK = 'subscription Stock { stockChanged { petId quantity } }';
/** Deep enough for GRAPHQL_MAX_DEPTH=3 and GRAPHQL_MAX_COST=10 to refuse it when it is not trusted. */
const DEEP = 'query Deep { pets(first: 50) { nodes { category { pets(first: 5) { nodes { name } } } } } }';
const UNLISTED = 'query Unlisted { pets(first: 1) { totalCount } }';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-trusted-'));
/** Apollo's format for some, GraphQL Code Generator's (`sha256:` keys) for the others: both files are read. */
const apolloFile = path.join(dir, 'apollo.json');
const codegenFile = path.join(dir, 'codegen.json');
fs.writeFileSync(
  apolloFile,
  JSON.stringify({
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: [PETS, PET, NEW_CATEGORY].map((body) => ({
      id: sha256(body),
      body,
      name: /^\w+ (\w+)/.exec(body)![1],
      type: body.split(' ')[0],
    })),
  }),
);
fs.writeFileSync(
  codegenFile,
  JSON.stringify(Object.fromEntries([ORDERS, STOCK, DEEP].map((b) => [`sha256:${sha256(b)}`, b]))),
);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions: { code: string } }[] };
}

async function post(t: ListeningApp, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

async function get(t: ListeningApp, params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const search = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const res = await fetch(`${t.url}/graphql?${search}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null } as Answer;
}

const pq = (body: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(body) } });
const codeOf = (a: Answer) => a.body.errors?.[0]?.extensions.code;

const env = (mode: string, extra: Record<string, string> = {}) => ({
  TRUSTED_DOCUMENTS: mode,
  TRUSTED_DOCUMENTS_FILE: `${apolloFile}, ${codegenFile}`,
  ...extra,
});

describe('TRUSTED_DOCUMENTS=enforce', () => {
  let t: ListeningApp;
  let petId: string;

  beforeAll(async () => {
    t = await createListeningApp({ env: env('enforce', { TRUSTED_DOCUMENTS_CACHE_MAX_AGE_S: '60' }) });
    // The admin key may send any document (the explorer's case).
    const category = await post(t, { query: NEW_CATEGORY, variables: { name: 'dogs' } }, t.admin);
    expect(category.status).toBe(200);
    const pet = await post(
      t,
      {
        query: `mutation { createPet(input: { name: "Rex", categoryId: ${category.body.data!.createCategory.id} }) { id } }`,
      },
      t.admin,
    );
    expect(pet.body.errors).toBeUndefined();
    petId = pet.body.data!.createPet.id;
  });
  afterAll(() => t?.close());

  it('runs a listed document named by documentId, prefixed or bare, and by persistedQuery hash', async () => {
    for (const documentId of [
      `sha256:${sha256(PET)}`,
      sha256(PET),
      `SHA256:${sha256(PET)}`.replace('SHA256', 'sha256'),
    ]) {
      const answer = await post(t, { documentId, variables: { id: petId } });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { pet: { id: petId, name: 'Rex' } } });
    }
    const apollo = await post(t, { extensions: pq(PET), variables: { id: petId } });
    expect(apollo.body).toEqual({ data: { pet: { id: petId, name: 'Rex' } } });
    // Apollo Client's persisted-queries link retries with the text and the hash: a listed one runs.
    const both = await post(t, { query: PET, extensions: pq(PET), variables: { id: petId } });
    expect(both.body).toEqual({ data: { pet: { id: petId, name: 'Rex' } } });
  });

  it('runs a listed document sent in full', async () => {
    const answer = await post(t, { query: PETS });
    expect(answer.status).toBe(200);
    expect(answer.body.data!.pets.nodes).toEqual([{ id: petId, name: 'Rex' }]);
  });

  it('refuses an unlisted document, in full or by hash, with 403 PERSISTED_QUERY_NOT_IN_LIST and no data', async () => {
    for (const body of [
      { query: UNLISTED },
      { documentId: `sha256:${sha256(UNLISTED)}` },
      { extensions: pq(UNLISTED) },
      // Not even parsed: a syntax error is refused the same way.
      { query: '{ this is not GraphQL' },
    ]) {
      const answer = await post(t, body);
      expect(answer.status).toBe(403);
      expect(answer.body.data).toBeUndefined();
      expect(answer.body.errors).toEqual([
        {
          message: expect.stringMatching(/trusted documents/),
          extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', status: 403 },
        },
      ]);
    }
    const overGet = await get(t, { query: UNLISTED });
    expect([overGet.status, codeOf(overGet)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
    const hashOverGet = await get(t, { extensions: pq(UNLISTED) });
    expect([hashOverGet.status, codeOf(hashOverGet)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
  });

  it('refuses keys without the admin scope like anonymous callers', async () => {
    const reader = await createApiKey(t, ['orders:read']);
    const answer = await post(t, { query: UNLISTED }, reader);
    expect([answer.status, codeOf(answer)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
  });

  it('lets an admin key send any document, but registers no hash through APQ', async () => {
    const full = await post(t, { query: UNLISTED }, t.admin);
    expect(full.body).toEqual({ data: { pets: { totalCount: 1 } } });
    // An APQ registration (text + hash) of a new document: refused for everyone else ...
    const anonymous = await post(t, { query: UNLISTED, extensions: pq(UNLISTED) });
    expect([anonymous.status, codeOf(anonymous)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
    // ... and APQ is off, so an admin's registration stores nothing that the hash could run later.
    const registered = await post(t, { query: UNLISTED, extensions: pq(UNLISTED) }, t.admin);
    expect([registered.status, codeOf(registered)]).toEqual([400, 'PERSISTED_QUERY_NOT_SUPPORTED']);
    const later = await post(t, { extensions: pq(UNLISTED) });
    expect([later.status, codeOf(later)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
  });

  it("answers a listed text sent with another document's hash 400 PERSISTED_QUERY_HASH_MISMATCH, as allow and WebSocket do", async () => {
    for (const [body, headers] of [
      [{ query: PETS, extensions: pq(PET) }, {}],
      [{ query: PETS, extensions: pq(UNLISTED) }, {}],
      [{ query: UNLISTED, extensions: pq(PETS) }, t.admin],
    ] as const) {
      const answer = await post(t, body, headers);
      expect([answer.status, answer.body]).toEqual([
        400,
        {
          errors: [
            {
              message: 'provided sha does not match query',
              extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', status: 400 },
            },
          ],
        },
      ]);
    }
    const overGet = await get(t, { query: PETS, extensions: pq(PET) });
    expect([overGet.status, codeOf(overGet)]).toEqual([400, 'PERSISTED_QUERY_HASH_MISMATCH']);
    // Not listed, whatever hash it comes with: refused as any unlisted document.
    const unlisted = await post(t, { query: UNLISTED, extensions: pq(PETS) });
    expect([unlisted.status, codeOf(unlisted)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
  });

  it('still applies the scope table to listed documents', async () => {
    const anonymous = await post(t, { documentId: `sha256:${sha256(ORDERS)}` });
    expect([anonymous.status, codeOf(anonymous)]).toEqual([401, 'UNAUTHENTICATED']);
    const reader = await createApiKey(t, ['orders:read']);
    const withKey = await post(t, { documentId: `sha256:${sha256(ORDERS)}` }, reader);
    expect(withKey.body).toEqual({ data: { orders: { totalCount: 0 } } });
  });

  it('checks every operation of a batch, and runs none when one is not listed', async () => {
    const writer = await createApiKey(t, ['catalog:write']);
    const name = `batch ${Math.random()}`;
    const refused = await post(
      t,
      [{ documentId: sha256(NEW_CATEGORY), variables: { name } }, { query: UNLISTED }],
      writer,
    );
    expect([refused.status, codeOf(refused)]).toEqual([403, 'PERSISTED_QUERY_NOT_IN_LIST']);
    const categories = await post(t, { query: '{ categories { nodes { name } } }' }, t.admin);
    expect(categories.body.data!.categories.nodes.map((c: { name: string }) => c.name)).not.toContain(name);

    const ran = await post(
      t,
      [{ documentId: sha256(NEW_CATEGORY), variables: { name } }, { extensions: pq(PETS) }],
      writer,
    );
    expect(ran.status).toBe(200);
    expect((ran.body as unknown as Answer['body'][]).map((b) => b.errors)).toEqual([undefined, undefined]);
  });

  it('answers a mutation named by hash over GET with 405, as when sent in full', async () => {
    const answer = await get(t, { documentId: sha256(NEW_CATEGORY), variables: { name: 'x' } });
    expect([answer.status, codeOf(answer)]).toEqual([405, 'METHOD_NOT_ALLOWED']);
  });

  it('refuses a malformed documentId (400) and both a query and a documentId (400)', async () => {
    const malformed = await post(t, { documentId: 'md5:abc' });
    expect([malformed.status, codeOf(malformed)]).toEqual([400, 'BAD_REQUEST']);
    const both = await post(t, { query: PETS, documentId: sha256(PETS) });
    expect([both.status, codeOf(both)]).toEqual([400, 'BAD_REQUEST']);
  });

  it('makes anonymous GET reads by hash cacheable: public max-age and a strong ETag, 304 on If-None-Match', async () => {
    const params = { documentId: `sha256:${sha256(PET)}`, variables: { id: petId } };
    const first = await get(t, params);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { pet: { id: petId, name: 'Rex' } } });
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers.get('x-petstore-cache-policy')).toBeNull();
    const again = await get(t, params, { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    // Apollo's wire format too.
    const apollo = await get(t, { extensions: pq(PET), variables: { id: petId } });
    expect(apollo.headers.get('cache-control')).toBe('public, max-age=60');
    expect(apollo.headers.get('etag')).toBe(etag);
  });

  it('keeps reads with a key private, answers with errors uncached, and full documents under the same policy', async () => {
    const params = { documentId: `sha256:${sha256(PET)}`, variables: { id: petId } };
    const keyed = await get(t, params, t.admin);
    expect(keyed.headers.get('cache-control')).toBe('private, no-cache');
    const missing = await get(t, { ...params, variables: { id: 'not-an-id' } });
    expect(missing.body.errors).toBeDefined();
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(missing.headers.get('etag')).toBeNull();
    // One policy for every read (docs/caching.md): by hash or in full, the same headers and tag.
    const full = await get(t, { query: PET, variables: { id: petId } }, t.admin);
    expect(full.status).toBe(200);
    expect(full.headers.get('cache-control')).toBe('private, no-cache');
    expect(full.headers.get('etag')).toBe(keyed.headers.get('etag'));
  });

  describe('over WebSocket (graphql-ws)', () => {
    const open: TestWsClient[] = [];
    afterAll(() => Promise.all(open.map((c) => c.dispose())));

    /** The first message of a subscription: its first result, or its error. */
    function first(client: TestWsClient, payload: Record<string, unknown>): Promise<unknown> {
      return new Promise((resolve) => {
        const stop = client.client.subscribe(payload as never, {
          next: (value) => {
            resolve({ next: value });
            stop();
          },
          error: (error) => resolve({ error }),
          complete: () => undefined,
        });
      });
    }

    it('refuses an unlisted subscription before parsing, and subscribes by hash', async () => {
      const client = connectWs(t.url);
      open.push(client);
      await client.connected;
      const refused = (await first(client, { query: 'subscription { stockChanged { petId } }' })) as {
        error: { message: string; extensions: { code: string } }[];
      };
      expect(refused.error[0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');

      const event = first(client, { query: '', extensions: pq(STOCK) });
      await new Promise((r) => setTimeout(r, 200));
      await post(
        t,
        { query: `mutation { updateInventory(petId: ${petId}, input: { quantity: 7 }) { quantity } }` },
        t.admin,
      );
      expect(await event).toEqual({ next: { data: { stockChanged: { petId, quantity: 7 } } } });
    });
  });
});

describe('TRUSTED_DOCUMENTS=allow', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    // Limits so tight that only a document that skips them can run.
    t = await createListeningApp({ env: env('allow', { GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_COST: '10' }) });
  });
  afterAll(() => t?.close());

  it('runs unlisted documents, through every check', async () => {
    const small = await post(t, { query: '{ pets(first: 1) { totalCount } }' });
    expect(small.body).toEqual({ data: { pets: { totalCount: 0 } } });
    const deep = await post(t, { query: DEEP.replace('Deep', 'NotListed') });
    expect([deep.status, codeOf(deep)]).toEqual([400, 'QUERY_TOO_COMPLEX']);
  });

  it('lets listed documents skip validation (depth) and the cost check', async () => {
    for (const body of [{ documentId: `sha256:${sha256(DEEP)}` }, { extensions: pq(DEEP) }, { query: DEEP }]) {
      const answer = await post(t, body);
      expect(answer.body).toEqual({ data: { pets: { nodes: [] } } });
    }
  });

  it('keeps Apollo APQ for unlisted documents, and answers an unknown documentId 404', async () => {
    const text = '{ pets(first: 2) { totalCount } }';
    const notYet = await post(t, { extensions: pq(text) });
    expect(codeOf(notYet)).toBe('PERSISTED_QUERY_NOT_FOUND');
    await post(t, { query: text, extensions: pq(text) });
    const registered = await post(t, { extensions: pq(text) });
    expect(registered.body).toEqual({ data: { pets: { totalCount: 0 } } });
    const unknown = await post(t, { documentId: `sha256:${sha256(text)}` });
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 'PERSISTED_QUERY_NOT_FOUND']);
  });

  it("answers a text sent with a listed document's hash that is not its hash 400 PERSISTED_QUERY_HASH_MISMATCH", async () => {
    const other = await post(t, { query: UNLISTED, extensions: pq(PETS) });
    expect([other.status, codeOf(other), other.body.data]).toEqual([400, 'PERSISTED_QUERY_HASH_MISMATCH', undefined]);
    const same = await post(t, { query: PETS, extensions: pq(PETS) });
    expect(same.body).toEqual({ data: { pets: { nodes: [] } } });
  });

  it("answers the same over WebSocket: a subscription's text with a listed document's hash that is not its hash", async () => {
    const client = connectWs(t.url);
    try {
      await client.connected;
      const text = 'subscription NotStock { stockChanged { quantity } }';
      const refused = await new Promise<unknown>((resolve) => {
        const stop = client.client.subscribe({ query: text, extensions: pq(STOCK) } as never, {
          next: (value) => (resolve({ next: value }), stop()),
          error: (error) => resolve({ error }),
          complete: () => undefined,
        });
      });
      expect(refused).toMatchObject({
        error: [
          { message: 'provided sha does not match query', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH' } },
        ],
      });
    } finally {
      await client.dispose();
    }
  });
});

describe('trusted documents and the cost budget', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({
      env: env('enforce', { GRAPHQL_MAX_COST: '10', RATE_LIMIT_COST_BUDGET: '10', RATE_LIMIT_WINDOW_MS: '600000' }),
    });
  });
  afterAll(() => t?.close());

  it('answers what costs more than the whole budget 400 QUERY_TOO_COMPLEX, not a 429 that no retry can pass', async () => {
    // DEEP is exempt from the cost limit (listed) and costs more than the budget; three PETs cost
    // 3 x 5 points, a batch charged as a whole: neither fits in a fresh window, ever.
    for (const body of [
      { documentId: sha256(DEEP) },
      [1, 2, 3].map(() => ({ documentId: sha256(PET), variables: { id: '1' } })),
    ]) {
      const answer = await post(t, body);
      expect([answer.status, codeOf(answer), answer.headers.get('retry-after')]).toEqual([
        400,
        'QUERY_TOO_COMPLEX',
        null,
      ]);
      expect(answer.body.errors![0]!.message).toMatch(
        /more than the whole budget of 10 points per 600 s; nothing was run/,
      );
    }
    // What fits runs, and what does not fit in what is left is still 429, to retry.
    const pet = { documentId: sha256(PET), variables: { id: '1' } };
    expect((await post(t, pet)).status).toBe(200);
    expect((await post(t, pet)).status).toBe(200);
    const spent = await post(t, pet);
    expect([spent.status, codeOf(spent)]).toEqual([429, 'RATE_LIMITED']);
    expect(spent.headers.get('retry-after')).not.toBeNull();
  });
});

describe('TRUSTED_DOCUMENTS=off (the default)', () => {
  let t: ListeningApp;
  beforeAll(async () => (t = await createListeningApp()));
  afterAll(() => t?.close());

  it('ignores documentId and serves every document as before', async () => {
    expect((await post(t, { query: UNLISTED })).status).toBe(200);
    const byId = await post(t, { documentId: sha256(PETS) });
    expect([byId.status, codeOf(byId)]).toEqual([400, 'BAD_REQUEST']);
  });
});
