/**
 * The standard GraphQL clients against a real listening server (issue 11, issue 10 item 7): Apollo
 * Client 4 (HttpLink, BatchHttpLink, PersistedQueryLink), urql and graphql-request send their own
 * requests, with their default settings unless a test says otherwise.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  type IntrospectionQuery,
} from 'graphql';
import { ClientError, GraphQLClient } from 'graphql-request';
import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { Client as UrqlClient, fetchExchange } from '@urql/core';
import { serverAudits } from 'graphql-http';
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createApiKey } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** A fetch that records what each client sent. */
function recordingFetch() {
  const sent: { method: string; contentType: string | null; body: string | null }[] = [];
  const received: number[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      contentType: headers.get('content-type'),
      body: typeof init?.body === 'string' ? init.body : null,
    });
    const res = await fetch(input, init);
    received.push(res.status);
    return res;
  };
  return { fetchFn, sent, received };
}

/** A raw HTTP exchange (no automatic decompression), for compression and CORS headers. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const apollo = (link: ConstructorParameters<typeof ApolloClient>[0]['link']) =>
  new ApolloClient({ link, cache: new InMemoryCache() });

describe('GraphQL clients against a real server', () => {
  let t: ListeningApp;
  let endpoint: string;
  const logLines: { msg?: string; reqId?: string }[] = [];
  let readOrders: Record<string, string>;
  let writeOrders: Record<string, string>;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
        done();
      },
    });
    t = await createListeningApp({ logger: { level: 'info', stream } });
    endpoint = `${t.url}/graphql`;
    readOrders = await createApiKey(t, ['orders:read']);
    writeOrders = await createApiKey(t, ['orders:write']);
  });
  afterAll(() => t.close());

  describe('status rule (item 1) and whole-operation access (issue 10 item 7)', () => {
    it('refuses an anonymous operation that reaches a protected field as a whole (401, no data), and answers 200 with data once it runs', async () => {
      const client = new GraphQLClient(endpoint, { errorPolicy: 'all' });
      const error: ClientError = await client.request('{ pets(first: 1) { totalCount } order(id: "1") { id } }').then(
        () => {
          throw new Error('expected a ClientError');
        },
        (e: unknown) => e as ClientError,
      );
      expect(error).toBeInstanceOf(ClientError);
      expect(error.response.status).toBe(401);
      expect(error.response.data).toBeUndefined();
      expect(error.response.errors).toEqual([
        {
          message: expect.stringContaining('Query.order (orders:read)'),
          extensions: { code: 'UNAUTHENTICATED', status: 401 },
        },
      ]);
      expect(error.response.headers.get('www-authenticate')).toBe('Bearer');

      // With the scope it runs: an error met while executing leaves the rest of the data, and 200.
      const category = await makeCategory(t);
      const reader = new GraphQLClient(endpoint, { headers: readOrders, errorPolicy: 'all' });
      const result = await reader.rawRequest<{ pets: { totalCount: number }; bad: null }>(
        `{ pets(first: 1) { totalCount } order(id: "999999999") { id } bad: category(id: "${category.id}") { pets(first: 0) { totalCount } } }`,
      );
      expect(result.status).toBe(200);
      expect(result.data.pets.totalCount).toEqual(expect.any(Number));
      expect(result.data.bad).toBeNull();
      expect(result.errors).toEqual([
        expect.objectContaining({ path: ['bad', 'pets'], extensions: { code: 'VALIDATION_FAILED', status: 400 } }),
      ]);
    });

    it('refuses a mutation whose selection reaches a field the key may not use before it runs (403, nothing ordered); one that runs and fails is 200 with data null', async () => {
      const pet = await makePet(t, { stock: 5 });
      const client = new GraphQLClient(endpoint, { headers: writeOrders });
      const before = await t.db.prisma.order.count({ where: { petId: pet.id } });
      const error = (await client
        .request('mutation($input: NewOrder!) { placeOrder(input: $input) { id pet { orders { totalCount } } } }', {
          input: { petId: pet.id.toString(), quantity: 1 },
        })
        .catch((e: unknown) => e)) as ClientError;
      expect(error.response.status).toBe(403);
      expect(error.response.data).toBeUndefined();
      expect(error.response.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN', status: 403 });
      expect(error.response.errors?.[0]?.message).toContain('Pet.orders (orders:read)');
      expect(await t.db.prisma.order.count({ where: { petId: pet.id } })).toBe(before);
      expect((await t.db.prisma.inventoryItem.findUnique({ where: { petId: pet.id } }))?.quantity).toBe(5);

      // A mutation that runs and fails (a non-null root field): data null, 200, its error's own status.
      const scarce = await makePet(t, { stock: 1 });
      const all = new GraphQLClient(endpoint, { headers: writeOrders, errorPolicy: 'all' });
      const result = await all.rawRequest('mutation($input: NewOrder!) { placeOrder(input: $input) { id } }', {
        input: { petId: scarce.id.toString(), quantity: 5 },
      });
      expect(result.status).toBe(200);
      expect(result.data).toBeNull();
      expect(result.errors?.[0]?.extensions).toEqual({ code: 'OUT_OF_STOCK', status: 409 });
    });

    it('follows fragments and inline fragments to the fields they reach', async () => {
      const client = new GraphQLClient(endpoint, { headers: writeOrders });
      const query =
        'query { ...Q } fragment Q on Query { pets(first: 1) { nodes { ... on Pet { ...P } } } } fragment P on Pet { orders { totalCount } }';
      const error = (await client.request(query).catch((e: unknown) => e)) as ClientError;
      expect(error.response.status).toBe(403);
      expect(error.response.data).toBeUndefined();
      expect(error.response.errors?.[0]?.message).toContain('Pet.orders');
    });
  });

  describe('GET queries without a preflight header (item 2)', () => {
    const query = '{ pets(first: 1) { totalCount } }';

    it('serves urql with its defaults (GET, no Content-Type), anonymous and with a key', async () => {
      for (const headers of [{}, readOrders]) {
        const { fetchFn, sent } = recordingFetch();
        const client = new UrqlClient({
          url: endpoint,
          exchanges: [fetchExchange],
          fetch: fetchFn,
          fetchOptions: { headers },
        });
        const result = await client.query(query, {}).toPromise();
        expect(result.error).toBeUndefined();
        expect(result.data).toEqual({ pets: { totalCount: expect.any(Number) } });
        expect(sent).toEqual([{ method: 'GET', contentType: null, body: null }]);
      }
    });

    it('serves Apollo Client with useGETForQueries and graphql-request with method GET', async () => {
      for (const headers of [{}, readOrders]) {
        const a = recordingFetch();
        const client = apollo(new HttpLink({ uri: endpoint, useGETForQueries: true, fetch: a.fetchFn, headers }));
        const { data, error } = await client.query({ query: gql(query), fetchPolicy: 'no-cache' });
        expect(error).toBeUndefined();
        expect(data).toMatchObject({ pets: { totalCount: expect.any(Number) } });
        expect(a.sent.map((s) => s.method)).toEqual(['GET']);

        const g = recordingFetch();
        const result = await new GraphQLClient(endpoint, { method: 'GET', headers, fetch: g.fetchFn }).request(query);
        expect(result).toEqual({ pets: { totalCount: expect.any(Number) } });
        expect(g.sent.map((s) => s.method)).toEqual(['GET']);
      }
    });

    it('refuses a mutation over GET with 405, Allow: POST and extensions.status 405', async () => {
      const url = `${endpoint}?query=${encodeURIComponent('mutation { deletePet(id: "1") { id } }')}`;
      const res = await fetch(url, { headers: { accept: GRAPHQL_RESPONSE } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('content-type')).toContain(GRAPHQL_RESPONSE);
      expect(await res.json()).toEqual({
        errors: [{ message: expect.any(String), extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } }],
      });
    });

    it('refuses text/plain and form-encoded POSTs (what a cross-site form sends) with 415', async () => {
      for (const body of [
        '{"query":"mutation { deletePet(id: \\"1\\") { id } }"}',
        new URLSearchParams({ query: '{ __typename }' }),
      ]) {
        const res = await fetch(endpoint, {
          method: 'POST',
          body,
          headers: typeof body === 'string' ? { 'content-type': 'text/plain' } : {},
        });
        expect(res.status).toBe(415);
        expect(await res.json()).toEqual({
          errors: [{ message: expect.any(String), extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 } }],
        });
      }
    });
  });

  describe('compression (item 3)', () => {
    it('compresses GraphQL, REST and /openapi.json answers with br or gzip as asked', async () => {
      const category = (await makePet(t)).categoryId;
      for (let i = 0; i < 30; i++) await makePet(t, { categoryId: category });
      const body = JSON.stringify({
        query: '{ pets(first: 100) { nodes { id name status categoryId category { name } } } }',
      });
      const post = (encoding?: string) =>
        raw(endpoint, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', ...(encoding ? { 'accept-encoding': encoding } : {}) },
        });
      const plain = await post();
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(2048);
      const br = await post('br, gzip');
      expect(br.headers['content-encoding']).toBe('br');
      expect(zlib.brotliDecompressSync(br.body).toString()).toBe(plain.body.toString());
      expect(br.body.length).toBeLessThan(plain.body.length / 4);
      const gzip = await post('gzip');
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gzip.body).toString()).toBe(plain.body.toString());
      // `*` is every coding not named: a coding refused with q=0 stays refused (it was sent gzip).
      expect((await post('gzip;q=0, *')).headers['content-encoding']).toBe('br');
      expect((await post('br;q=0, *')).headers['content-encoding']).toBe('gzip');
      expect((await post('br;q=0, gzip;q=0, *')).headers['content-encoding']).toBeUndefined();
      expect((await post('*')).headers['content-encoding']).toBe('br');

      const orders = await raw(`${t.url}/store/orders?limit=100`, {
        headers: { ...t.admin, 'accept-encoding': 'gzip' },
      });
      expect(orders.status).toBe(200);
      const openapi = await raw(`${t.url}/openapi.json`, { headers: { 'accept-encoding': 'br' } });
      expect(openapi.headers['content-encoding']).toBe('br');
      expect(JSON.parse(zlib.brotliDecompressSync(openapi.body).toString()).openapi).toBe('3.0.3');
      // Small answers go out as they are.
      const small = await raw(`${endpoint}?query=${encodeURIComponent('{ __typename }')}`, {
        headers: { 'accept-encoding': 'br, gzip' },
      });
      expect(small.headers['content-encoding']).toBeUndefined();
    });
  });

  describe('the served schema (item 4)', () => {
    it('introspects to exactly the committed schema.graphql, with nothing internal', async () => {
      const client = new GraphQLClient(endpoint);
      const introspection = await client.request<IntrospectionQuery>(getIntrospectionQuery());
      const served = buildClientSchema(introspection);
      expect(served.getType('JitPreCoercedValue')).toBeUndefined();
      const committed = buildSchema(fs.readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
      expect(printSchema(lexicographicSortSchema(served))).toBe(printSchema(lexicographicSortSchema(committed)));
    });
  });

  describe('error answers (item 5)', () => {
    it('gives Apollo Client 4 the code of a 401 for an invalid key (the media type it asked for)', async () => {
      const { fetchFn } = recordingFetch();
      const client = apollo(
        new HttpLink({ uri: endpoint, fetch: fetchFn, headers: { authorization: 'Bearer pk_not_a_key' } }),
      );
      const { error } = await client.query({
        query: gql('{ pets(first: 1) { totalCount } }'),
        fetchPolicy: 'no-cache',
        errorPolicy: 'all',
      });
      expect(CombinedGraphQLErrors.is(error)).toBe(true);
      expect((error as CombinedGraphQLErrors).errors[0]!.extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: `${GRAPHQL_RESPONSE}, application/json;q=0.9`,
          authorization: 'Bearer nope',
        },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    });

    it('answers a persisted-query hash mismatch 400 PERSISTED_QUERY_HASH_MISMATCH, not logged as unexpected', async () => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-apq-mismatch' },
        body: JSON.stringify({
          query: '{ __typename }',
          extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } },
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        errors: [{ message: expect.any(String), extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', status: 400 } }],
      });
      expect(logLines.filter((l) => l.reqId === 'req-apq-mismatch' && /unexpected/.test(l.msg ?? ''))).toEqual([]);
    });

    it('serves Apollo Client persisted queries: 404 PERSISTED_QUERY_NOT_FOUND first, then the query', async () => {
      const { fetchFn, received } = recordingFetch();
      const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
      const query = gql(`{ pets(first: 2) { totalCount } apq: __typename }`);
      const client = apollo(new PersistedQueryLink({ sha256 }).concat(new HttpLink({ uri: endpoint, fetch: fetchFn })));
      const first = await client.query({ query, fetchPolicy: 'no-cache' });
      expect(first.data).toMatchObject({ pets: { totalCount: expect.any(Number) }, apq: 'Query' });
      expect(received).toEqual([404, 200]);
      await client.query({ query, fetchPolicy: 'no-cache' });
      expect(received).toEqual([404, 200, 200]);
    });

    it('refuses a lone UTF-16 surrogate in a variable or a literal with 400 VALIDATION_FAILED', async () => {
      const client = new GraphQLClient(endpoint, { headers: t.admin });
      for (const [query, variables] of [
        ['mutation($n: String!) { createCategory(input: { name: $n }) { id } }', { n: '\ud800x' }],
        [
          'mutation($i: NewCategory!) { createCategory(input: $i) { id } }',
          { i: { name: 'ok', description: 'a \udc00 b' } },
        ],
        ['mutation { createCategory(input: { name: "\\ud800x" }) { id } }', undefined],
      ] as const) {
        const error = (await client.request(query, variables).catch((e: unknown) => e)) as ClientError;
        expect(error.response.status).toBe(400);
        expect(error.response.errors?.[0]?.extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
      }
      expect(await t.db.prisma.category.count({ where: { name: 'ok' } })).toBe(0);
    });
  });

  describe('batches (item 6)', () => {
    it("answers Apollo's BatchHttpLink, one request for several operations", async () => {
      const { fetchFn, sent } = recordingFetch();
      const client = apollo(
        new BatchHttpLink({ uri: endpoint, fetch: fetchFn, batchInterval: 20, headers: readOrders }),
      );
      const [a, b] = await Promise.all([
        client.query({ query: gql('query A { pets(first: 1) { totalCount } }'), fetchPolicy: 'no-cache' }),
        client.query({ query: gql('query B { orders(first: 1) { totalCount } }'), fetchPolicy: 'no-cache' }),
      ]);
      expect(a.data).toMatchObject({ pets: { totalCount: expect.any(Number) } });
      expect(b.data).toMatchObject({ orders: { totalCount: expect.any(Number) } });
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]!.body!)).toHaveLength(2);
    });

    it('answers each operation of a batch with its own errors (a refused one does not take the others down)', async () => {
      const client = apollo(new BatchHttpLink({ uri: endpoint, batchInterval: 20 }));
      const [ok, refused] = await Promise.all([
        client.query({
          query: gql('query Ok { pets(first: 1) { totalCount } }'),
          fetchPolicy: 'no-cache',
          errorPolicy: 'all',
        }),
        client.query({
          query: gql('query Refused { orders(first: 1) { totalCount } }'),
          fetchPolicy: 'no-cache',
          errorPolicy: 'all',
        }),
      ]);
      expect(ok.data).toMatchObject({ pets: { totalCount: expect.any(Number) } });
      expect((refused.error as CombinedGraphQLErrors).errors[0]!.extensions).toEqual({
        code: 'UNAUTHENTICATED',
        status: 401,
      });
    });

    it('refuses a batch larger than GRAPHQL_BATCH_MAX (10) with 400', async () => {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(Array.from({ length: 11 }, () => ({ query: '{ __typename }' }))),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        errors: [{ message: expect.stringContaining('at most 10'), extensions: { code: 'BAD_REQUEST', status: 400 } }],
      });
    });
  });

  describe('GraphQL over HTTP (graphql-http serverAudits)', () => {
    it('passes every audit: no error, and only the documented warnings', async () => {
      const results = await Promise.all(
        serverAudits({ url: endpoint, fetchFn: fetch }).map(async (audit) => ({
          ...(await audit.fn()),
          name: audit.name,
        })),
      );
      const byStatus = (s: string) => results.filter((r) => r.status === s).map((r) => r.name);
      expect(byStatus('error')).toEqual([]);
      // GET queries without a preflight header are served (on main these were 3 notices).
      expect(byStatus('notice')).toEqual([]);
      // 4xx (not 200) for parse, validation and variable errors under application/json: this API's
      // HTTP status always agrees with extensions.status (README, "Clients").
      expect(byStatus('warn')).toEqual([
        'SHOULD use 200 status code on document parsing failure when accepting application/json',
        'SHOULD use 200 status code on document validation failure when accepting application/json',
        'SHOULD use a status code of 200 on variable coercion failure when accepting application/json',
      ]);
    });
  });
});

describe('rate limit and CORS as browser and batching clients see them', () => {
  const ORIGIN = 'https://app.example.com';
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RATE_LIMIT_MAX: '4', RATE_LIMIT_WINDOW_MS: '60000', CORS_ORIGINS: ORIGIN } });
  });
  afterAll(() => t.close());

  it('exposes the rate-limit, paging, lifecycle and request-id headers to browser code (item 8)', async () => {
    const preflight = await raw(`${t.url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization',
      },
    });
    expect(preflight.status).toBe(204);
    const actual = await raw(`${t.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { origin: ORIGIN },
    });
    expect(actual.headers['access-control-allow-origin']).toBe(ORIGIN);
    const exposed = String(actual.headers['access-control-expose-headers'])
      .split(/,\s*/)
      .map((h) => h.toLowerCase());
    for (const header of [
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
      'x-request-id',
      'x-total-count',
      'link',
      'deprecation',
      'sunset',
    ]) {
      expect(exposed).toContain(header);
    }
    expect(actual.headers['ratelimit-remaining']).toBeDefined();
  });

  it('counts every operation of a batch, and answers 429 in the media type asked for (items 5, 6)', async () => {
    // The preflight is not limited; the GET above used 1 of 4. A batch of 3 uses the rest.
    const client = apollo(new BatchHttpLink({ uri: `${t.url}/graphql`, batchInterval: 20 }));
    const results = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        client.query({ query: gql(`query ${name} { __typename }`), fetchPolicy: 'no-cache' }),
      ),
    );
    expect(results.map((r) => r.data)).toEqual([
      { __typename: 'Query' },
      { __typename: 'Query' },
      { __typename: 'Query' },
    ]);
    const single = apollo(new HttpLink({ uri: `${t.url}/graphql` }));
    const { error } = await single.query({ query: gql('{ __typename }'), fetchPolicy: 'no-cache', errorPolicy: 'all' });
    expect((error as CombinedGraphQLErrors).errors[0]!.extensions).toEqual({ code: 'RATE_LIMITED', status: 429 });
    const res = await raw(`${t.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: GRAPHQL_RESPONSE, origin: ORIGIN },
    });
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toBe(`${GRAPHQL_RESPONSE}; charset=utf-8`);
    expect(res.headers['retry-after']).toBeDefined();
    expect(String(res.headers['access-control-expose-headers'])).toContain('Retry-After');
  });
});
