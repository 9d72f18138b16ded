/**
 * Hostile input, generated (fast-check): GraphQL variables of every wrong type, malformed and
 * truncated JSON, huge strings, NUL bytes and other unicode, deep and wide queries, invalid ids and
 * cursors, REST parameters. Every answer must be a well-formed 4xx/2xx JSON answer with no internal
 * text (no stack, SQL, Prisma or file paths), the process must keep answering, and no stored row may
 * change except through a mutation the service accepted.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { insertOrder, makePet } from '../helpers/factories';

const INTERNAL_TEXT =
  /PrismaClient|prisma\.|DriverAdapter|node_modules|\n\s+at |\/src\/|\.ts:\d+|SQLSTATE|syntax error at or near|violates .* constraint|duplicate key|TypeError|ReferenceError|Cannot read properties/i;

/** Operations with variables, so that generated variable values reach every argument type. */
const OPERATIONS: { query: string; variables: string[]; mutation: boolean }[] = [
  {
    query: 'query($id: ID!) { pet(id: $id) { id name status category { name } } }',
    variables: ['id'],
    mutation: false,
  },
  {
    query:
      'query($f: PetFilter, $o: PetOrder, $first: Int, $after: String, $last: Int, $before: String) { pets(filter: $f, orderBy: $o, first: $first, after: $after, last: $last, before: $before) { totalCount nodes { id } pageInfo { endCursor } } }',
    variables: ['f', 'o', 'first', 'after', 'last', 'before'],
    mutation: false,
  },
  {
    query:
      'query($f: OrderFilter, $first: Int, $after: String) { orders(filter: $f, first: $first, after: $after) { nodes { id quantity } } }',
    variables: ['f', 'first', 'after'],
    mutation: false,
  },
  {
    query:
      'query($f: InventoryFilter, $first: Int) { inventoryItems(filter: $f, first: $first) { nodes { petId quantity } } }',
    variables: ['f', 'first'],
    mutation: false,
  },
  {
    query:
      'query($id: ID!, $first: Int, $after: String) { category(id: $id) { pets(first: $first, after: $after) { nodes { id } } } }',
    variables: ['id', 'first', 'after'],
    mutation: false,
  },
  { query: 'mutation($input: NewPet!) { createPet(input: $input) { id } }', variables: ['input'], mutation: true },
  {
    query: 'mutation($id: ID!, $input: PetUpdate!) { updatePet(id: $id, input: $input) { id } }',
    variables: ['id', 'input'],
    mutation: true,
  },
  {
    query: 'mutation($id: ID!, $status: PetStatus!) { setPetStatus(id: $id, status: $status) { id } }',
    variables: ['id', 'status'],
    mutation: true,
  },
  {
    query: 'mutation($input: NewCategory!) { createCategory(input: $input) { id } }',
    variables: ['input'],
    mutation: true,
  },
  {
    query: 'mutation($id: ID!, $input: CategoryUpdate!) { updateCategory(id: $id, input: $input) { id } }',
    variables: ['id', 'input'],
    mutation: true,
  },
  { query: 'mutation($id: ID!) { deleteCategory(id: $id) { id } }', variables: ['id'], mutation: true },
  {
    query:
      'mutation($petId: ID!, $input: InventoryUpdate!) { updateInventory(petId: $petId, input: $input) { quantity } }',
    variables: ['petId', 'input'],
    mutation: true,
  },
];

const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'Re\u0000x',
    '\u202Eevil',
    '\uD800',
    '💥'.repeat(60),
    "'; DROP TABLE pets; --",
    '%_%',
    '\\',
  ),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);
const hostileId = fc.oneof(
  fc.constantFrom(
    '1',
    '2',
    '0',
    '-1',
    '9223372036854775807',
    '9223372036854775808',
    '-9223372036854775809',
    '1e3',
    '0x10',
    ' 1',
    '١',
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map((d) => d as unknown),
  hostileString,
);
const hostileCursor = fc.oneof(
  fc.base64String({ maxLength: 60 }),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '').toString('base64url')),
  fc.constantFrom('WyJpZCIsIjEiXQ', 'WyJuYW1lLWFzYyIsIlJleCIsIjEyIl0', 'WyJpZC1hc2MiLCItMSJd'),
  hostileString,
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    hostileId,
    hostileCursor,
    fc.integer(),
    fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1, 1e308, -0, 0, 101, 100, 1),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('AVAILABLE', 'SOLD', 'available', 'NAME', 'ID', 'ASC'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom(
        'name',
        'categoryId',
        'status',
        'description',
        'quantity',
        'petId',
        'complete',
        'nameContains',
        'quantityBelow',
        'field',
        'direction',
        '__proto__',
        'constructor',
      ),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

const asHeaders = fc.constantFrom<'anonymous' | 'admin'>('anonymous', 'admin', 'admin');

// Thousands of requests and database fingerprints: on a loaded 2-core machine (the PostgreSQL and
// PgBouncer runs beside other work) a property has taken more than the default minute.
jest.setTimeout(240_000);

describe('hostile input', () => {
  let t: TestApp;
  let baseline: string;

  /** Where the write-ahead log ends: a write to any table moves it (a read may too). */
  const walPosition = async (): Promise<string> =>
    (await t.db.prisma.$queryRawUnsafe<{ lsn: string }[]>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))[0]!.lsn;
  /** The last fingerprint read, and the log's end before it was read. */
  let known: { lsn: string; print: string } | undefined;
  /**
   * A digest of every row the API could change. Read again only when the log has moved since the
   * last reading (no write, no change: a fifth of the work per request, for thousands of requests).
   */
  const fingerprint = async (): Promise<string> => {
    const lsn = await walPosition();
    if (known?.lsn === lsn) return known.print;
    const print = await readFingerprint();
    known = { lsn, print };
    return print;
  };
  const readFingerprint = async (): Promise<string> => {
    const [row] = await t.db.prisma.$queryRawUnsafe<{ f: string }[]>(`
      SELECT concat_ws('|',
        (SELECT md5(coalesce(string_agg(c::text, ',' ORDER BY id), '')) FROM categories c),
        (SELECT md5(coalesce(string_agg(p::text, ',' ORDER BY id), '')) FROM pets p),
        (SELECT md5(coalesce(string_agg(o::text, ',' ORDER BY id), '')) FROM orders o),
        (SELECT md5(coalesce(string_agg(i::text, ',' ORDER BY pet_id), '')) FROM inventory_items i),
        (SELECT md5(coalesce(string_agg(concat_ws(',', id, name, key_hash, scopes::text, revoked_at), ';' ORDER BY id), '')) FROM api_keys)
      ) AS f`);
    return row!.f;
  };

  /** The checks every answer must pass; `mutation` says whether the request could write. */
  const check = async (res: LightMyRequestResponse, mutation: boolean) => {
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toMatch(INTERNAL_TEXT);
    let body: { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new Error(`not JSON (${res.statusCode}): ${res.body.slice(0, 200)}`);
    }
    for (const e of body.errors ?? []) expect(e.extensions?.code).not.toBe('INTERNAL');
    const accepted = mutation && !!body.data && Object.values(body.data).some((v) => v !== null);
    const now = await fingerprint();
    if (!accepted) expect(now).toBe(baseline);
    baseline = now;
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (let i = 0; i < 3; i++) {
      const pet = await makePet(t, { stock: 5 });
      await insertOrder(t, { petId: pet.id });
    }
    baseline = await fingerprint();
  });
  afterAll(() => t.close());

  const send = (payload: string | object, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload,
    });

  it('survives GraphQL variables of every wrong type, with and without a key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        fc.array(hostileValue, { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        asHeaders,
        async (op, values, omitSome, as) => {
          const variables = Object.fromEntries(
            op.variables.map((name, i) => [name, values[i]]).filter((_, i) => !(omitSome && i % 2)),
          );
          const res = await send({ query: op.query, variables }, as === 'admin' ? t.admin : {});
          await check(res, op.mutation);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('survives malformed, truncated and mistyped request bodies', async () => {
    const valid = fc
      .tuple(fc.constantFrom(...OPERATIONS), fc.array(hostileValue, { minLength: 6, maxLength: 6 }))
      .map(([op, v]) =>
        JSON.stringify({ query: op.query, variables: Object.fromEntries(op.variables.map((n, i) => [n, v[i]])) }),
      );
    const body = fc.oneof(
      fc.tuple(valid, fc.nat()).map(([s, n]) => s.slice(0, n % Math.max(1, s.length))),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.jsonValue().map((v) => JSON.stringify(v) ?? ''),
      fc
        .record({ query: hostileValue, variables: hostileValue, operationName: hostileValue, extensions: hostileValue })
        .map((r) => JSON.stringify(r)),
      fc.constantFrom(
        '[{"query":"{ __typename }"}]',
        '{"query":"{ __typename }","variables":"x"}',
        '\u0000',
        '{"query":"\u0000"}',
        '{"__proto__":{"query":"{ __typename }"}}',
      ),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/graphql',
      '',
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, asHeaders, async (payload, type, as) => {
        const headers: Record<string, string> = { ...(as === 'admin' ? t.admin : {}) };
        if (type) headers['content-type'] = type;
        const res = await t.app.inject({ method: 'POST', url: '/graphql', headers, payload });
        // A body could hold a valid mutation (untruncated); the fingerprint check allows accepted ones.
        await check(res, /mutation/.test(payload));
      }),
      { numRuns: 700 },
    );
  });

  it('survives deep, wide and aliased queries, fragments and directives', async () => {
    const selection = fc.letrec((tie) => ({
      pet: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('id', 'name', 'status', 'categoryId', '__typename', 'nosuchfield'),
        tie('category').map((c) => `category { ${c} }`),
        fc
          .tuple(fc.integer({ min: -5, max: 300 }), tie('order'))
          .map(([n, o]) => `orders(first: ${n}) { nodes { ${o} } }`),
        fc
          .tuple(fc.nat(40), tie('pet'))
          .map(([n, s]) => Array.from({ length: n + 1 }, (_, i) => `a${i}: ${s}`).join(' ')),
        tie('pet').map((s) => `... on Pet { ${s} } ${s} @include(if: true) @skip(if: false)`),
      ),
      category: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('id', 'name', 'description'),
        fc
          .tuple(fc.integer({ min: -5, max: 300 }), tie('pet'))
          .map(([n, s]) => `pets(first: ${n}) { nodes { ${s} } totalCount }`),
      ),
      order: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('id', 'quantity', 'complete'),
        tie('pet').map((s) => `pet { ${s} }`),
      ),
    }));
    await fc.assert(
      fc.asyncProperty(selection.pet, fc.integer({ min: 0, max: 120 }), asHeaders, async (sel, first, as) => {
        const query = `{ pets(first: ${first}) { nodes { ${sel} } } }`;
        await check(await send({ query }, as === 'admin' ? t.admin : {}), false);
      }),
      { numRuns: 400 },
    );
  });

  it('survives hostile REST paths, parameters and headers', async () => {
    // Every byte percent-encoded (lone surrogates included, as U+FFFD), plus raw malformed escapes.
    const encode = (s: string) =>
      [...Buffer.from(s.slice(0, 2000), 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    const segment = fc.oneof(
      fc.oneof(hostileString, hostileId.map(String)).map(encode),
      fc.constantFrom('%', '%E0%A4%A', '%00', '..%2F..%2Fetc%2Fpasswd', '%C0%AF', '1%20OR%201=1', '%uD800'),
    );
    const query = fc.dictionary(fc.constantFrom('complete', 'petId', 'limit', 'offset', 'x', '__proto__'), segment, {
      maxKeys: 4,
    });
    const auth = fc.oneof(
      fc.constant(undefined),
      fc.constant('admin'),
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((s) => `Bearer ${s}`),
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/pets/', '/store/orders', '/graphql', '/nope/'),
        segment,
        query,
        auth,
        async (base, seg, q, a) => {
          const search = new URLSearchParams(q as Record<string, string>).toString();
          const url = `${base}${base.endsWith('/') ? seg : ''}${search ? `?${search}` : ''}`;
          const headers: Record<string, string> = { 'apollo-require-preflight': 'true' };
          if (a === 'admin') Object.assign(headers, t.admin);
          // Header values must be valid HTTP header characters; light-my-request rejects others itself.
          else if (a !== undefined && /^[\t\x20-\x7e]*$/.test(a)) headers.authorization = a;
          const res = await t.app.inject({ method: 'GET', url, headers });
          await check(res, false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('is still up and its data intact', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(await fingerprint()).toBe(baseline);
  });
});
