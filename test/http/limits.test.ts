/**
 * Limits and hostile requests that are not about keys: malformed requests, body size, the GraphQL
 * complexity limits, the in-memory rate limit, security headers, and logs without credentials.
 */
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { getIntrospectionQuery } from 'graphql';
import { createApiKey, createTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const json = { 'content-type': 'application/json' };

// One database for the suite's apps (each with its own settings): no test here reads another's rows.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());
const app = (options: TestAppOptions = {}) => createTestApp({ ...options, database });

describe('malformed and oversized requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });
  afterAll(() => t.close());

  const post = (url: string, payload: string, headers: Record<string, string> = json) =>
    t.app.inject({ method: 'POST', url, payload, headers });

  // Apollo negotiates the answer's type after executing the operation: a mutation was done, then
  // answered 406 as if refused, and a client retrying it did it twice.
  it('refuses a request whose Accept allows no GraphQL answer before anything runs: the mutation is not done', async () => {
    const admin = await createApiKey(t, ['admin']);
    const mutation = { query: 'mutation { createCategory(input: { name: "Unaccepted" }) { id } }' };
    for (const accept of ['application/xml', 'text/html']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { ...json, ...admin, accept },
        payload: [mutation, mutation].slice(accept === 'text/html' ? 1 : 0),
      });
      expect([accept, res.statusCode]).toEqual([accept, 406]);
      expect(res.json().errors[0]).toMatchObject({
        message: expect.stringMatching(/answers GraphQL as application\/json or application\/graphql-response\+json/),
        extensions: { code: 'NOT_ACCEPTABLE', status: 406 },
      });
    }
    const overGet = await t.app.inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ __typename }')}`,
      headers: { accept: 'application/xml' },
    });
    expect(overGet.statusCode).toBe(406);
    const read = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: json,
      payload: { query: '{ categories(first: 100) { nodes { name } } }' },
    });
    expect(read.json().data.categories.nodes.map((c: { name: string }) => c.name)).not.toContain('Unaccepted');
  });

  it.each([
    ['invalid JSON', '{"query": "{ pets { totalCount } }"', json],
    ['no query', '{"variables":{}}', json],
    ['an empty body', '', json],
  ])('answers %s on /graphql with 400 BAD_REQUEST as a GraphQL error', async (_label, payload, headers) => {
    const res = await post('/graphql', payload, headers);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'BAD_REQUEST', status: 400 } }],
    });
  });

  it('answers malformed JSON elsewhere in the spec Error shape (a GET path: 405, the body unread)', async () => {
    const res = await post('/healthz', '{"a":', json);
    expect(res.statusCode).toBe(405);
    expect(res.json()).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String), status: 405 });
  });

  it.each([
    ['text/plain', '{"query":"{ pets { totalCount } }"}'],
    ['application/x-www-form-urlencoded', 'query=%7B__typename%7D'],
    [
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n{ __typename }\r\n--x--\r\n',
    ],
  ])('refuses a %s POST on /graphql with 415 UNSUPPORTED_MEDIA_TYPE (the CSRF rule)', async (type, payload) => {
    const res = await post('/graphql', payload, { 'content-type': type });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 } }],
    });
  });

  it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({
      query: '{ pets { totalCount } }',
      variables: { x: 'a'.repeat(t.appConfig.limits.bodyBytes) },
    });
    const res = await post('/graphql', big);
    expect(res.statusCode).toBe(413);
    expect(res.json().errors[0].extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('reads a compressed body (gzip, deflate, br), holds its decompressed size to the limit, and refuses a broken or unknown one', async () => {
    const body = JSON.stringify({ query: '{ categories(first: 1) { nodes { id } } }' });
    const sent = (encoding: string, payload: string | Buffer) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { ...json, 'content-encoding': encoding }, payload });
    const encoded = { gzip: zlib.gzipSync(body), deflate: zlib.deflateSync(body), br: zlib.brotliCompressSync(body) };
    for (const [encoding, payload] of Object.entries(encoded)) {
      const res = await sent(encoding, payload);
      expect([encoding, res.statusCode, res.json().errors]).toEqual([encoding, 200, undefined]);
    }
    // A bomb: 62 KB of gzip that inflates past the 1 MiB limit is refused without being inflated whole.
    const inflated = JSON.stringify({ query: '{ __typename }', variables: { x: ' '.repeat(64 * 1024 * 1024) } });
    const bomb = zlib.gzipSync(inflated, { level: 9 });
    expect(bomb.length).toBeLessThan(t.appConfig.limits.bodyBytes);
    const big = await sent('gzip', bomb);
    expect([big.statusCode, big.json().errors[0].extensions]).toEqual([
      413,
      { code: 'PAYLOAD_TOO_LARGE', status: 413 },
    ]);
    const broken = await sent('gzip', encoded.gzip.subarray(0, 12));
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors[0].extensions.status).toBe(400);
    const unknown = await sent('zstd', body);
    expect([unknown.statusCode, unknown.json().errors[0].extensions]).toEqual([
      415,
      { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
    ]);
  });
});

describe('GraphQL complexity limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });
  afterAll(() => t.close());

  const query = (q: string, variables?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/graphql', headers: json, payload: { query: q, variables } });
  const tooComplex = async (q: string, limit: string, variables?: Record<string, unknown>) => {
    const res = await query(q, variables);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      message: expect.stringContaining(`${limit} limit`),
      extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 },
    });
  };
  /** `pets { nodes { category { pets { nodes { category ... } } } } }` nested `n` levels deep. */
  const nested = (levels: number) => {
    let inner = 'id';
    for (let i = 0; i < levels; i++) inner = `category { pets(first: 1) { nodes { ${inner} } } }`;
    return `{ pets(first: 1) { nodes { ${inner} } } }`;
  };

  it('rejects a query deeper than 10 and accepts one of depth 10', async () => {
    // Depth of nested(n): pets, nodes, then 3 per level, then id.
    await tooComplex(nested(3), 'depth');
    const ok = await query(
      '{ pets(first: 1) { nodes { category { pets(first: 1) { nodes { category { pets(first: 1) { nodes { id } } } } } } } } }',
    );
    expect(ok.statusCode).toBe(200);
  });

  it('counts fields, not fragments: the depth-10 read written with a spread or an inline fragment passes, 11 does not', async () => {
    // The read of the test above, its last level moved into a fragment.
    const spread = await query(
      '{ pets(first: 1) { nodes { category { pets(first: 1) { nodes { category { ...K } } } } } } } fragment K on Category { pets(first: 1) { nodes { id } } }',
    );
    expect(spread.statusCode).toBe(200);
    const inline = await query(
      `{ pets(first: 1) { nodes { category { pets(first: 1) { nodes { category { ... on Category { pets(first: 1) { nodes { id } } } } } } } } } }`,
    );
    expect(inline.statusCode).toBe(200);
    await tooComplex(
      '{ pets(first: 1) { nodes { category { pets(first: 1) { nodes { category { ...K } } } } } } } fragment K on Category { pets(first: 1) { nodes { category { pets(first: 1) { totalCount } } } } }',
      'depth',
    );
  });

  it('rejects more than 15 aliases', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: inventorySummary { quantity }`).join(' ')} }`;
    expect((await query(aliases(15))).statusCode).toBe(200);
    await tooComplex(aliases(16), 'aliases');
  });

  it('rejects more than 50 directives, counting those on every spread of a fragment', async () => {
    const spreads = (n: number) =>
      `{ ${Array.from({ length: n }, () => '...F @skip(if: false)').join(' ')} } fragment F on Query { __typename }`;
    expect((await query(spreads(50))).statusCode).toBe(200);
    await tooComplex(spreads(51), 'directives');
  });

  it('rejects a document of more than 1000 tokens', async () => {
    await tooComplex(`{ ${'__typename '.repeat(1001)} }`, 'tokens');
  });

  it('rejects a query over the cost budget, counting page sizes given as literals or variables', async () => {
    const wide = '{ pets(first: 100) { nodes { id category { pets(first: 100) { nodes { id } } } } } }';
    await tooComplex(wide, 'cost');
    const viaVariables =
      'query($n: Int) { pets(first: $n) { nodes { id category { pets(first: $n) { nodes { id } } } } } }';
    await tooComplex(viaVariables, 'cost', { n: 100 });
    expect((await query(viaVariables, { n: 2 })).statusCode).toBe(200);
    // Verdicts are remembered per document and page sizes: the same document with other sizes is
    // judged on those sizes, and a remembered rejection answers exactly like the first one.
    await tooComplex(viaVariables, 'cost', { n: 100 });
    expect((await query(viaVariables, { n: 3 })).statusCode).toBe(200);
    // A page size that is not an integer is judged as the default page, then refused by coercion.
    const notANumber = await query(viaVariables, { n: 'x'.repeat(10_000) });
    expect(notANumber.statusCode).toBe(400);
    expect(notANumber.json().errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    // Without first/last a connection counts as a default page of 20.
    await tooComplex('{ categories { nodes { pets { nodes { orders { nodes { id } } } } } } }', 'cost');
  });

  it('counts the page a connection reads, whichever of first and last gives it and whichever is null', async () => {
    // `pets` pages backwards too: first null and last 100 read 100 pets, each with 100 of its category's.
    const inner = '{ nodes { id category { pets(first: 100) { nodes { id } } } } }';
    for (const args of ['last: 100', 'first: null, last: 100', 'last: 100, first: null']) {
      await tooComplex(`{ pets(${args}) ${inner} }`, 'cost');
    }
    const viaVariables = `query($f: Int, $l: Int) { pets(first: $f, last: $l) ${inner} }`;
    await tooComplex(viaVariables, 'cost', { f: null, l: 100 });
    await tooComplex(viaVariables, 'cost', { l: 100 });
    expect((await query(viaVariables, { f: null, l: 2 })).statusCode).toBe(200);
  });

  it('lets the largest page with its relations through the default cost budget', async () => {
    const fullPage =
      '{ pets(first: 100) { edges { cursor node { id name status category { id name } inventory { quantity } } } pageInfo { hasNextPage endCursor } } }';
    expect((await query(fullPage)).statusCode).toBe(200);
    const nested =
      '{ categories(first: 20) { nodes { name pets(first: 20) { nodes { name inventory { quantity } } } } } }';
    expect((await query(nested)).statusCode).toBe(200);
  });

  it('lets the introspection query of Sandbox and codegen through', async () => {
    const res = await query(getIntrospectionQuery());
    expect(res.statusCode).toBe(200);
    expect(res.json().data.__schema.queryType.name).toBe('Query');
  });
});

describe('the rate limit (in memory)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app({ env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(() => t.close());

  const ask = (headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { ...json, ...headers },
      payload: { query: '{ __typename }' },
      remoteAddress,
    });

  it('answers 429 RATE_LIMITED with Retry-After and RateLimit headers once a client address is over', async () => {
    const first = await ask();
    expect(first.headers['ratelimit-limit']).toBe('3');
    expect(first.headers['ratelimit-remaining']).toBe('2');
    expect(first.headers['ratelimit-reset']).toBeDefined();
    await ask();
    await ask();
    const over = await ask();
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.json()).toEqual({
      errors: [{ message: expect.stringContaining('Rate limit'), extensions: { code: 'RATE_LIMITED', status: 429 } }],
    });
    // Another address has its own budget, and health checks are never limited.
    expect((await ask({}, '10.0.0.2')).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
  });

  it('counts per key, whatever the address', async () => {
    const key = await createApiKey(t, ['orders:read']);
    for (const address of ['10.1.0.1', '10.1.0.2', '10.1.0.3']) expect((await ask(key, address)).statusCode).toBe(200);
    expect((await ask(key, '10.1.0.4')).statusCode).toBe(429);
    expect((await ask({}, '10.1.0.4')).statusCode).toBe(200);
  });
});

/** helmet's headers that only a browser rendering a document uses: pages get them, API answers do not. */
const DOCUMENT_ONLY_HEADERS = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

describe('production hardening', () => {
  it("sends the API's security headers on API answers, a document's on pages, and leaves the Sandbox page to its own CSP", async () => {
    const t = await app();
    // What the OWASP REST Security Cheat Sheet lists for API answers, and nothing only a document uses.
    const expectApiProfile = (res: { headers: Record<string, unknown> }, what: string) => {
      expect({ what, csp: res.headers['content-security-policy'] }).toEqual({
        what,
        csp: "default-src 'none';frame-ancestors 'none'",
      });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['strict-transport-security']).toBeDefined();
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      for (const documentOnly of DOCUMENT_ONLY_HEADERS)
        expect({ what, [documentOnly]: res.headers[documentOnly] }).toEqual({ what });
    };
    try {
      expectApiProfile(await t.app.inject({ method: 'GET', url: '/healthz' }), 'GET /healthz');
      expectApiProfile(await t.app.inject({ method: 'GET', url: '/readyz' }), 'GET /readyz');
      // A CORS preflight of /graphql is the API's too.
      expectApiProfile(
        await t.app.inject({
          method: 'OPTIONS',
          url: '/graphql',
          headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
        }),
        'OPTIONS /graphql',
      );
      expectApiProfile(await t.app.inject({ method: 'GET', url: '/openapi.json' }), 'GET /openapi.json');
      // REST answers and their errors, GraphQL answers and their errors.
      for (const url of ['/pets/1', '/pets/not-a-number', '/store/orders']) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode).toBeGreaterThanOrEqual(400);
        expectApiProfile(res, `GET ${url}`);
      }
      for (const payload of [{ query: '{ pet(id: 1) { name } }' }, { query: '{ nope }' }]) {
        const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: json, payload });
        expectApiProfile(res, `POST /graphql ${payload.query}`);
      }
      // Pages (and any path no route names) keep helmet's whole set.
      for (const [url, accept] of [
        ['/docs/', 'text/html'],
        ['/', 'text/html'],
        ['/no-such-path', '*/*'],
      ]) {
        const res = await t.app.inject({ method: 'GET', url, headers: { accept } });
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
        expect(res.headers['content-security-policy']).toContain("script-src 'self'");
        for (const documentOnly of DOCUMENT_ONLY_HEADERS) expect(res.headers[documentOnly]).toBeDefined();
      }
      const page = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).toBeUndefined();
      expect(page.body).toContain('http-equiv="Content-Security-Policy"');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
    } finally {
      await t.close();
    }
  });

  // A browser's Accept also allows any type (`text/html,...,*` + `/*;q=0.8`): Apollo found JSON
  // acceptable and answered 400 "must contain a non-empty `query`", so a browser opening /graphql in
  // production was never told that EXPLORER gives an explorer.
  it('tells a browser opening /graphql in production which setting gives the explorer, whatever its Accept', async () => {
    const t = await app({ env: { NODE_ENV: 'production' } });
    try {
      const chrome =
        'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
      const page = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: chrome } });
      expect(page.statusCode).toBe(406);
      expect(page.json().errors[0]).toMatchObject({
        message: expect.stringMatching(/explorer only where EXPLORER is sandbox or graphiql/),
        extensions: { code: 'NOT_ACCEPTABLE', status: 406 },
      });
      // GraphQL over GET from the same browser still runs.
      const query = await t.app.inject({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent('{ __typename }')}`,
        headers: { accept: chrome },
      });
      expect(query.statusCode).toBe(200);
      expect(query.json()).toEqual({ data: { __typename: 'Query' } });
    } finally {
      await t.close();
    }
  });

  it('turns introspection and the landing page off in production by default', async () => {
    const t = await app({ env: { NODE_ENV: 'production' } });
    try {
      const page = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
      expect(page.headers['content-type']).not.toContain('text/html');
      // A browser is told why there is no page, and which setting gives one (issue 30).
      expect(page.statusCode).toBe(406);
      expect(page.json().errors[0].message).toMatch(/explorer only where EXPLORER is sandbox or graphiql/);
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: json,
        payload: { query: '{ __schema { types { name } } }' },
      });
      expect(res.statusCode).toBe(400);
      // The setting by name, not Apollo's "pass introspection: true to ApolloServer".
      expect(res.json().errors[0].message).toMatch(/GRAPHQL_INTROSPECTION=true/);
      const typo = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: json,
        payload: { query: '{ pet { nam } }' },
      });
      expect(typo.body).not.toMatch(/Did you mean/);
      // Nor in a variable's value refused (a misspelt input field, a misspelt enum value), still 400.
      for (const [filter, hint] of [
        [{ statu: 'AVAILABLE' }, '"status"'],
        [{ status: 'AVAILABL' }, '"AVAILABLE"'],
      ] as const) {
        const variable = await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: json,
          payload: { query: 'query ($f: PetFilter) { pets(filter: $f) { totalCount } }', variables: { f: filter } },
        });
        expect(variable.statusCode).toBe(400);
        expect(variable.json().errors[0].message).toMatch(/^Variable "\$f" got invalid value/);
        expect(variable.json().errors[0].message).not.toMatch(/Did you mean/);
        expect(variable.json().errors[0].message).not.toContain(hint);
      }
      // Without a landing page, GET /graphql is the API's too: its CSP header is back.
      expect(page.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    } finally {
      await t.close();
    }
  });

  it('never writes the Authorization header or a key to the logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const t = await app({ logger: { level: 'trace', stream } });
    try {
      const good = await createApiKey(t, ['admin']);
      const bad = { authorization: 'Bearer pk_thisIsNotARealKeyButMustNotBeLoggedEither000000' };
      for (const headers of [good, bad, { authorization: 'Basic c2VjcmV0OnBhc3N3b3Jk' }]) {
        await t.app.inject({
          method: 'POST',
          url: '/graphql',
          headers: { ...json, ...headers },
          payload: { query: '{ orders { totalCount } }' },
        });
        await t.app.inject({ method: 'POST', url: '/graphql', headers: { ...json, ...headers }, payload: '{bad json' });
      }
      t.app.log.info({ req: { headers: { ...good } }, headers: { ...good } }, 'a line that tries to log the header');
      const all = lines.join('');
      expect(lines.length).toBeGreaterThan(5);
      for (const secret of [good.authorization!.slice(7), 'pk_thisIsNotARealKey', 'c2VjcmV0OnBhc3N3b3Jk'])
        expect(all).not.toContain(secret);
      expect(all).toContain('[Redacted]');
    } finally {
      await t.close();
    }
  });
});
