/**
 * The petstore as a Federation v2 subgraph (GRAPHQL_FEDERATION=true, src/schema/federation.ts):
 * `_service`, `_entities`, their access rules, cost and SQL statements, through HTTP in-process.
 * The documents are plain strings: codegen types test documents against schema.graphql, which (with
 * federation off, the default) has no `_entities`.
 */
import { buildSchema } from 'graphql';
import { createApiKey, createTestApp, type TestApp } from '../helpers/test-app';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const SERVICE = 'query { _service { sdl } }';

const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Pet { id name category { name } inventory { quantity } }
    ... on Category { id name }
    ... on InventoryItem { petId quantity status }
  }
}`;

const ORDER_ENTITIES = `query OrderEntities($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Order { id quantity pet { name } } }
}`;

const ORDER_BY_ID = 'query OrderById($id: ID!) { order(id: $id) { id } }';

const rep = (__typename: string, key: Record<string, unknown>): Record<string, unknown> => ({ __typename, ...key });

describe('federation off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('has no _service or _entities', async () => {
    const reply = await t.gql(SERVICE);
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe.each([
  ['graphql-jit', 'true'],
  ['graphql-js', 'false'],
])('a Federation v2 subgraph (GRAPHQL_FEDERATION=true, executed by %s)', (_name, jit) => {
  let database: TestDatabase;
  let t: TestApp;
  let pets: Awaited<ReturnType<typeof makePet>>[];
  let category: Awaited<ReturnType<typeof makeCategory>>;
  beforeAll(async () => {
    database = await createTestDatabase();
    t = await createTestApp({ database, env: { GRAPHQL_FEDERATION: 'true', GRAPHQL_JIT: jit } });
    category = await makeCategory(t, `Fed category ${jit}`);
    pets = [];
    for (let i = 0; i < 50; i++) pets.push(await makePet(t, { categoryId: category.id, stock: i + 1 }));
  });
  afterAll(async () => {
    await t?.close();
    await database?.destroy();
  });

  it('answers _service { sdl } with @link to federation v2 and the entity keys', async () => {
    const { _service } = await t.gqlOk<{ _service: { sdl: string } }, never>(SERVICE);
    const sdl = _service.sdl;
    expect(sdl).toContain('extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])');
    for (const [type, key] of [
      ['Pet', 'id'],
      ['Category', 'id'],
      ['Order', 'id'],
      ['InventoryItem', 'petId'],
    ])
      expect(sdl).toMatch(new RegExp(`type ${type}( implements Node)? @key\\(fields: "${key}"\\) \\{`));
    // The SDL is the subgraph as written: _entities and _service are composition's to add.
    expect(sdl).not.toContain('_entities');
    expect(sdl).not.toContain('_Service');
    // Otherwise it is the schema everyone else gets (federation directives aside, it parses alone).
    expect(() =>
      buildSchema(sdl.replace(/@key\([^)]*\)/g, '').replace(/extend schema @link\(.*\)\n/, '')),
    ).not.toThrow();
  });

  it('resolves representations of several types, in their order, null where none exists', async () => {
    const [a, b] = [pets[0]!, pets[1]!];
    const data = await t.gqlOk<{ _entities: unknown[] }, unknown>(ENTITIES, {
      representations: [
        rep('Pet', { id: b.id.toString() }),
        rep('Category', { id: category.id.toString() }),
        rep('Pet', { id: '999999999' }),
        rep('InventoryItem', { petId: a.id.toString() }),
        rep('Pet', { id: a.id.toString() }),
      ],
    });
    expect(data._entities).toEqual([
      {
        __typename: 'Pet',
        id: b.id.toString(),
        name: b.name,
        category: { name: category.name },
        inventory: { quantity: 2 },
      },
      { __typename: 'Category', id: category.id.toString(), name: category.name },
      null,
      { __typename: 'InventoryItem', petId: a.id.toString(), quantity: 1, status: 'AVAILABLE' },
      {
        __typename: 'Pet',
        id: a.id.toString(),
        name: a.name,
        category: { name: category.name },
        inventory: { quantity: 1 },
      },
    ]);
  });

  it('accepts representations as a literal, with the key as a string or an integer', async () => {
    const a = pets[2]!;
    const data = await t.gqlOk<{ _entities: unknown[] }, never>(
      `{ _entities(representations: [{ __typename: "Pet", id: "${a.id}" }, { __typename: "Pet", id: ${a.id} }]) { ... on Pet { name } } }`,
    );
    expect(data._entities).toEqual([{ name: a.name }, { name: a.name }]);
  });

  it('reads 50 pets with category and inventory in as many statements as 5 (one per type read)', async () => {
    const statements = async (n: number) => {
      const representations = pets.slice(0, n).map((p) => rep('Pet', { id: p.id.toString() }));
      await t.gqlOk(ENTITIES, { representations }); // the API key's first use is not counted
      t.sql.reset();
      const data = await t.gqlOk<{ _entities: { inventory: { quantity: number } }[] }, unknown>(ENTITIES, {
        representations,
      });
      expect(data._entities.map((e) => e.inventory.quantity)).toEqual(pets.slice(0, n).map((_, i) => i + 1));
      return t.sql.count;
    };
    // Nothing is cached between requests: the second run is counted like the first.
    const [five, fifty] = [await statements(5), await statements(50)];
    console.info(`_entities: 5 pets -> ${five} SQL statements, 50 pets -> ${fifty} (with category and inventory)`);
    expect(fifty).toBe(five);
    // Pets with their categories and stock: one compiled statement (readEntities).
    expect(fifty).toBe(1);
  });

  it.each([
    ['an id that is not an int64', rep('Pet', { id: 'abc' }), /id: must be a 64-bit integer id/],
    [
      "a missing key field (another key than this subgraph's)",
      rep('InventoryItem', { id: '1' }),
      /^representation of InventoryItem: its key field petId is missing \(@key\(fields: "petId"\)\), got the fields __typename, id$/,
    ],
    [
      'a missing key field',
      rep('Pet', {}),
      /^representation of Pet: its key field id is missing \(@key\(fields: "id"\)\), got the fields __typename$/,
    ],
    ['an unknown __typename', rep('Review', { id: '1' }), /__typename must name an entity type/],
    ['no __typename', { id: '1' }, /__typename must name an entity type/],
    ['a value that is no object', '1', /must be an object/],
  ])('refuses %s as a client error (400 VALIDATION_FAILED), running nothing', async (_what, bad, message) => {
    t.sql.reset();
    const reply = await t.gql(ENTITIES, { representations: [rep('Pet', { id: pets[0]!.id.toString() }), bad] });
    expect(reply.status).toBe(400);
    expect(reply.data).toBeUndefined();
    expect(reply.errors).toHaveLength(1);
    expect(reply.errors![0]!.extensions.code).toBe('VALIDATION_FAILED');
    expect(reply.errors![0]!.message).toMatch(message);
    expect(t.sql.statements.filter((s) => /FROM "?pets"?/i.test(s))).toEqual([]);
  });

  it('refuses a malformed literal representation the same way', async () => {
    const reply = await t.gql('{ _entities(representations: [{ __typename: "Nope", id: "1" }]) { __typename } }');
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]?.extensions.code).toBe('VALIDATION_FAILED');
    expect(reply.errors?.[0]?.message).toMatch(/__typename must name an entity type/);
  });

  describe('access: an Order representation is refused exactly as order(id) is', () => {
    let orderId: string;
    beforeAll(async () => {
      orderId = (await insertOrder(t, { petId: pets[3]!.id, quantity: 2 })).id.toString();
    });

    it.each([
      ['anonymous', 401, 'UNAUTHENTICATED', [] as const],
      ['a key without orders:read', 403, 'FORBIDDEN', ['catalog:write'] as const],
    ])('%s: %i %s, no data', async (_who, status, code, scopes) => {
      const headers = scopes.length ? await createApiKey(t, [...scopes]) : {};
      const byId = await t.gql(ORDER_BY_ID, { id: orderId }, headers);
      const entity = await t.gql(ORDER_ENTITIES, { representations: [rep('Order', { id: orderId })] }, headers);
      expect([byId.status, byId.errors?.[0]?.extensions.code]).toEqual([status, code]);
      expect([entity.status, entity.errors?.[0]?.extensions.code]).toEqual([status, code]);
      expect(entity.data).toBeUndefined();
      expect(entity.headers['www-authenticate']).toBe(byId.headers['www-authenticate']);
    });

    it('refuses a fragment on Order even when the representations name only pets', async () => {
      const reply = await t.gql(
        `query Sneaky($representations: [_Any!]!) {
          _entities(representations: $representations) { ...O ... on Pet { name } }
        }
        fragment O on Order { quantity }`,
        { representations: [rep('Pet', { id: pets[0]!.id.toString() })] },
      );
      expect([reply.status, reply.errors?.[0]?.extensions.code]).toEqual([401, 'UNAUTHENTICATED']);
    });

    it('refuses an Order named only in a literal representation', async () => {
      const reply = await t.gql(
        `{ _entities(representations: [{ __typename: "Order", id: "${orderId}" }]) { __typename } }`,
      );
      expect([reply.status, reply.errors?.[0]?.extensions.code]).toEqual([401, 'UNAUTHENTICATED']);
    });

    it.each([
      [
        'a single object instead of a list',
        (id: string) =>
          `{ _entities(representations: { __typename: "Order", id: "${id}" }) { __typename ... on Node { nodeId } } }`,
        {},
      ],
      [
        'a single object in a variable',
        () => 'query One($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Node { nodeId } } }',
        (id: string) => ({ r: rep('Order', { id }) }),
      ],
      [
        "the list in a variable's default",
        (id: string) =>
          `query Defaulted($r: [_Any!]! = [{ __typename: "Order", id: "${id}" }]) { _entities(representations: $r) { __typename ... on Node { nodeId } } }`,
        {},
      ],
      [
        "a single object in a variable's default",
        (id: string) =>
          `query Defaulted($r: [_Any!]! = { __typename: "Order", id: "${id}" }) { _entities(representations: $r) { __typename ... on Node { nodeId } } }`,
        {},
      ],
    ])('refuses an Order named in %s: 401, no data, nothing revealed', async (_how, query, variables) => {
      const vars = typeof variables === 'function' ? variables(orderId) : variables;
      const reply = await t.gql(query(orderId), vars);
      expect([reply.status, reply.errors?.[0]?.extensions.code]).toEqual([401, 'UNAUTHENTICATED']);
      expect(reply.data).toBeUndefined();
    });

    it('lets pets through anonymously and orders with orders:read', async () => {
      const pet = await t.gqlOk<{ _entities: unknown[] }, unknown>(ENTITIES, {
        representations: [rep('Pet', { id: pets[0]!.id.toString() })],
      });
      expect(pet._entities).toHaveLength(1);
      const reader = await createApiKey(t, ['orders:read']);
      const order = await t.gqlOk<{ _entities: unknown[] }, unknown>(
        ORDER_ENTITIES,
        { representations: [rep('Order', { id: orderId }), rep('Order', { id: '424242' })] },
        reader,
      );
      expect(order._entities).toEqual([{ id: orderId, quantity: 2, pet: { name: pets[3]!.name } }, null]);
    });
  });
});

describe('cost: a batch of representations counts', () => {
  let t: TestApp;
  beforeAll(async () => {
    // `_entities { ... on Pet { id name category { name } } }` costs (2 + 1.5 x (2 + 1.5 x (1 + 1 + (2 + 1.5 x 1)))) x N:
    // 17.375 per representation (the inline fragment counts as a level). A budget of 700 takes 40, not 41.
    t = await createTestApp({ env: { GRAPHQL_FEDERATION: 'true', GRAPHQL_MAX_COST: '700' } });
  });
  afterAll(() => t.close());

  const query = `query Batch($representations: [_Any!]!) {
    _entities(representations: $representations) { ... on Pet { id name category { name } } }
  }`;
  const batch = (n: number) => Array.from({ length: n }, (_, i) => rep('Pet', { id: String(i + 1) }));

  it('multiplies the cost of the selection by the number of representations', async () => {
    const within = await t.gql(query, { representations: batch(40) });
    expect(within.status).toBe(200);
    expect(within.errors).toBeUndefined();
    const over = await t.gql(query, { representations: batch(41) });
    expect(over.status).toBe(400);
    expect(over.errors?.[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(over.data).toBeUndefined();
    // The verdict is remembered per document and batch size, never across sizes.
    expect((await t.gql(query, { representations: batch(40) })).status).toBe(200);
  });

  it('counts a literal list the same way', async () => {
    const literal = (n: number) =>
      `{ _entities(representations: [${batch(n)
        .map((r) => `{ __typename: "Pet", id: "${String(r.id)}" }`)
        .join(', ')}]) { ... on Pet { id name category { name } } } }`;
    expect((await t.gql(literal(40))).status).toBe(200);
    expect((await t.gql(literal(41))).errors?.[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
  });
});
