/**
 * graphql-jit behind Apollo's gateway interface (src/graphql/jit-gateway.ts): where it could answer
 * differently from graphql-js, it must not. Two apps share one database, one executing with
 * graphql-jit and one with graphql-js, and must give the same answers.
 */
import type { LightMyRequestResponse } from 'fastify';
import { JIT_CACHE_SIZE, JitGateway, MAX_VARIANTS, type CacheEntry } from '../../src/graphql/jit-gateway';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';

interface Request {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** Sent without the admin key. */
  anonymous?: boolean;
}

async function post(t: TestApp, request: Request): Promise<LightMyRequestResponse> {
  const { anonymous, ...payload } = request;
  return t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...(anonymous ? {} : t.admin) },
    payload,
  });
}

/** The answer without what differs between two requests anyway (the request id of INTERNAL errors). */
function comparable(res: LightMyRequestResponse) {
  return { status: res.statusCode, body: res.body.replace(/(request id |"requestId":")[\w-]+/g, '$1<id>') };
}

const BIG = 2n ** 53n + 1n; // 9007199254740993: not representable as a double
const MAX = 2n ** 63n - 1n;

describe('graphql-jit execution', () => {
  let jit: TestApp;
  let js: TestApp;
  let compile: jest.SpyInstance;
  beforeAll(async () => {
    compile = jest.spyOn(JitGateway.prototype, 'compile');
    jit = await createTestApp({ env: { GRAPHQL_JIT: 'true' } });
    js = await createTestApp({ database: jit, env: { GRAPHQL_JIT: 'false' } });
    const category = await makeCategory(jit, 'Jit big ids');
    await jit.db.prisma.category.create({ data: { id: MAX, name: 'Jit max id' } });
    await jit.db.prisma.pet.create({ data: { id: BIG, name: 'Big', categoryId: category.id } });
    await jit.db.prisma.inventoryItem.create({ data: { petId: BIG, quantity: 10 } });
    for (let i = 0; i < 3; i++) await makePet(jit, { categoryId: category.id, stock: i });
  });
  afterAll(async () => {
    compile.mockRestore();
    await js.app.close();
    await jit.close();
  });
  beforeEach(() => compile.mockClear());

  it('runs operations through compiled code, not graphql-js', async () => {
    const res = await post(jit, { query: 'query JitProbe { categories(first: 1) { totalCount } }' });
    expect(res.statusCode).toBe(200);
    expect(compile).toHaveBeenCalledTimes(1);
    expect(compile.mock.results[0].value).toMatchObject({ kind: 'jit' });
  });

  it('round-trips an id above 2^53 exactly, as a variable and as a literal', async () => {
    const query = 'query BigPet($id: ID!) { pet(id: $id) { id name categoryId } }';
    const byVariable = await post(jit, { query, variables: { id: BIG.toString() } });
    expect(byVariable.json()).toEqual({
      data: { pet: { id: '9007199254740993', name: 'Big', categoryId: expect.stringMatching(/^\d+$/) } },
    });
    const byString = await post(jit, { query: `{ pet(id: "${BIG}") { id } }` });
    expect(byString.json()).toEqual({ data: { pet: { id: '9007199254740993' } } });
    const byInt = await post(jit, { query: `{ category(id: ${MAX}) { id name } }` });
    expect(byInt.json()).toEqual({ data: { category: { id: '9223372036854775807', name: 'Jit max id' } } });
    // Compiled, not answered by the graphql-js fallback.
    expect(compile.mock.results.map((r) => r.value.kind)).toEqual(['jit', 'jit', 'jit']);
  });

  it('hands resolvers the bigint of an id inside an input object (placeOrder)', async () => {
    const query =
      'mutation Order($input: NewOrder!) { placeOrder(input: $input) { petId quantity pet { id inventory { quantity } } } }';
    const res = await post(jit, { query, variables: { input: { petId: BIG.toString(), quantity: 2 } } });
    expect(res.json()).toEqual({
      data: {
        placeOrder: {
          petId: '9007199254740993',
          quantity: 2,
          pet: { id: '9007199254740993', inventory: { quantity: 8 } },
        },
      },
    });
    const literal = await post(jit, {
      query: `mutation { placeOrder(input: { petId: "${BIG}", quantity: 1 }) { petId } }`,
    });
    expect(literal.json()).toEqual({ data: { placeOrder: { petId: '9007199254740993' } } });
    expect(await jit.db.prisma.order.count({ where: { petId: BIG } })).toBe(2);
  });

  it.each([
    ['letters', 'abc'],
    ['a value above int64', '9223372036854775808'],
    ['a number beyond 2^53', 9007199254740993],
    ['null', null],
  ])('rejects an id variable of %s as graphql-js does (400 VALIDATION_FAILED, same message)', async (_label, id) => {
    const request = { query: 'query PetCheck($id: ID!) { pet(id: $id) { id } }', variables: { id } };
    const [a, b] = [await post(jit, request), await post(js, request)];
    expect(a.statusCode).toBe(400);
    expect(a.json().errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    expect(comparable(a)).toEqual(comparable(b));
  });

  it('keeps the code, path and message of errors thrown by resolvers', async () => {
    const pet = await makePet(jit, { stock: 1 });
    const res = await post(jit, {
      query: 'mutation TooMany($input: NewOrder!) { placeOrder(input: $input) { id } }',
      variables: { input: { petId: pet.id.toString(), quantity: 5 } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: null,
      errors: [
        {
          message: `Pet ${pet.id} has 1 in stock; 5 ordered`,
          locations: [{ line: 1, column: 39 }],
          path: ['placeOrder'],
          extensions: { code: 'OUT_OF_STOCK', status: 409 },
        },
      ],
    });
    // A nested field the caller may not use: the whole operation is refused before it runs (401,
    // no data), as graphql-js would have it.
    const anonymous = await post(jit, {
      query: `{ pet(id: "${pet.id}") { name orders { totalCount } } }`,
      anonymous: true,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({
      errors: [
        { message: expect.stringContaining('Pet.orders'), extensions: { code: 'UNAUTHENTICATED', status: 401 } },
      ],
    });
  });

  it('runs no mutation field after one that failed and nulled the data, as graphql-js does', async () => {
    // Every Mutation field is non-null: when one fails, `data` is null and graphql-js executes none
    // of the fields after it. A write that ran anyway would be invisible to the client.
    const pet = await makePet(jit, { stock: 3 });
    const quantity = () => jit.db.prisma.inventoryItem.findUniqueOrThrow({ where: { petId: pet.id } });
    const request = (n: number) => ({
      query: `mutation Serial {
        missing: updateInventory(petId: "999999999", input: { quantity: 1 }) { quantity }
        after: updateInventory(petId: "${pet.id}", input: { quantity: ${n} }) { quantity }
        ...Later
      }
      fragment Later on Mutation { later: updateInventory(petId: "${pet.id}", input: { quantity: ${n + 1} }) { quantity } }`,
    });
    const [a, b] = [await post(jit, request(7)), await post(js, request(7))];
    expect(a.json()).toEqual({ data: null, errors: [expect.objectContaining({ path: ['missing'] })] });
    expect(comparable(a)).toEqual(comparable(b));
    expect((await quantity()).quantity).toBe(3);
    // A mutation of one field still runs compiled.
    const single = await post(jit, {
      query: `mutation { updateInventory(petId: "${pet.id}", input: { quantity: 4 }) { quantity } }`,
    });
    expect(single.json()).toEqual({ data: { updateInventory: { quantity: 4 } } });
    expect(compile.mock.results.at(-1)!.value).toMatchObject({ kind: 'jit' });
  });

  it('compiles an operation once and reuses it for the same query text', async () => {
    const query = 'query Reused($first: Int) { pets(first: $first) { nodes { id } } }';
    for (const first of [1, 2, 3]) {
      const res = await post(jit, { query, variables: { first } });
      expect(res.json().data.pets.nodes).toHaveLength(first);
    }
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('never serves one operation of a document the compiled code of another', async () => {
    const query = `
      query ByName($id: ID!) { pet(id: $id) { name } }
      query ById($id: ID!) { pet(id: $id) { id } }
    `;
    const variables = { id: BIG.toString() };
    for (let round = 0; round < 2; round++) {
      expect((await post(jit, { query, variables, operationName: 'ByName' })).json()).toEqual({
        data: { pet: { name: 'Big' } },
      });
      expect((await post(jit, { query, variables, operationName: 'ById' })).json()).toEqual({
        data: { pet: { id: BIG.toString() } },
      });
    }
    expect(compile).toHaveBeenCalledTimes(2);
    expect(compile.mock.calls.map(([, operation]) => operation.name.value)).toEqual(['ByName', 'ById']);
    // An operation name the document does not have: graphql-js's answer.
    const unknown = { query, variables, operationName: 'Nope' };
    expect(comparable(await post(jit, unknown))).toEqual(comparable(await post(js, unknown)));
  });

  it("runs an operation through compiled code when another operation's fragment is conditioned on its own variable", async () => {
    const query = `
      query Plain { pets(first: 1) { nodes { id } } }
      query Conditioned($full: Boolean!) { pets(first: 1) { nodes { ...Full } } }
      fragment Full on Pet { id name @include(if: $full) }
    `;
    const request = { query, operationName: 'Plain' };
    const [a, b] = [await post(jit, request), await post(js, request)];
    expect(a.statusCode).toBe(200);
    expect(comparable(a)).toEqual(comparable(b));
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('runs an operation graphql-jit cannot compile through graphql-js, without trying again', async () => {
    compile.mockReturnValueOnce({ kind: 'graphql-js', reason: 'test' } satisfies CacheEntry);
    const query = 'query NotCompiled($id: ID!) { pet(id: $id) { id name } }';
    for (let i = 0; i < 2; i++) {
      const res = await post(jit, { query, variables: { id: BIG.toString() } });
      expect(res.json()).toEqual({ data: { pet: { id: BIG.toString(), name: 'Big' } } });
    }
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('keeps at most JIT_CACHE_SIZE compilations, each @skip/@include variant counting as one', async () => {
    // Operations of four independent conditions: MAX_VARIANTS compilations each, so a few more than
    // JIT_CACHE_SIZE / MAX_VARIANTS operations fill the cache (and counting operations would keep
    // MAX_VARIANTS times the bound).
    const names = ['a', 'b', 'c', 'd'];
    const query = (n: number) =>
      `query Variants${n}(${names.map((v) => `$${v}: Boolean!`).join(', ')}) { ` +
      names.map((v) => `${v}: pet(id: ${BIG}) @include(if: $${v}) { id }`).join(' ') +
      ' }';
    const variables = (combination: number) =>
      Object.fromEntries(names.map((v, bit) => [v, (combination & (1 << bit)) !== 0]));
    const runAll = async (n: number) => {
      for (let combination = 0; combination < MAX_VARIANTS; combination++) {
        const res = await post(jit, { query: query(n), variables: variables(combination) });
        expect(res.statusCode).toBe(200);
      }
    };
    const operations = Math.ceil(JIT_CACHE_SIZE / MAX_VARIANTS) + 1;
    for (let n = 0; n < operations; n++) await runAll(n);
    expect(compile).toHaveBeenCalledTimes(operations * MAX_VARIANTS);
    // The first operation's compilations were the least recently used: gone, compiled again.
    compile.mockClear();
    await runAll(0);
    expect(compile).toHaveBeenCalledTimes(MAX_VARIANTS);
    // The last operation's are still there.
    compile.mockClear();
    await runAll(operations - 1);
    expect(compile).toHaveBeenCalledTimes(0);
  });

  describe('answers exactly as graphql-js does', () => {
    const cases: [string, () => Request][] = [
      [
        'nested lists with literals and variables',
        () => ({
          query: `query Nested($status: PetStatus, $first: Int!) {
          categories(first: 5) { nodes { id name pets(filter: { status: $status }, first: $first) { totalCount nodes { id name status inventory { quantity status } } } } }
        }`,
          variables: { status: 'AVAILABLE', first: 3 },
        }),
      ],
      [
        'an input object with a default (orderBy) and enums',
        () => ({
          query:
            '{ pets(orderBy: { field: NAME }, first: 4) { edges { cursor node { id name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }',
        }),
      ],
      [
        'a variable input object',
        () => ({
          query: 'query F($filter: PetFilter) { pets(filter: $filter, first: 2) { nodes { name } } }',
          variables: { filter: { nameContains: 'big' } },
        }),
      ],
      [
        'an unknown field of a variable input object',
        () => ({
          query: 'query F($filter: PetFilter) { pets(filter: $filter) { nodes { name } } }',
          variables: { filter: { nope: 1 } },
        }),
      ],
      ['a missing required variable', () => ({ query: 'query M($id: ID!) { pet(id: $id) { id } }' })],
      [
        'a page size over 100',
        () => ({ query: 'query P($n: Int) { pets(first: $n) { nodes { id } } }', variables: { n: 101 } }),
      ],
      ['a bad cursor literal', () => ({ query: '{ pets(after: "nope") { nodes { id } } }' })],
      [
        'fragments, aliases, @skip and @include',
        () => ({
          query: `query S($skip: Boolean!, $with: Boolean = true) {
          a: pets(first: 1) { ...P }
          b: pets(first: 2) @skip(if: $skip) { nodes { id } }
          c: pets(first: 1) @include(if: $with) { nodes { __typename id } }
        }
        fragment P on PetConnection { nodes { ...N } }
        fragment N on Pet { id name category { id } }`,
          variables: { skip: true },
        }),
      ],
      [
        'a date-time and a null id in the result',
        () => ({ query: '{ orders(first: 5) { nodes { id petId shipDate complete quantity } } }' }),
      ],
      ['a not-found mutation error', () => ({ query: 'mutation { deletePet(id: "999999999") { id } }' })],
      // The variable's explicit null makes the literal invalid, which graphql-js reports as a field error.
      [
        'a literal made invalid by a null variable inside it',
        () => ({
          query: 'mutation N($q: Int = 1) { placeOrder(input: { petId: "999999999", quantity: $q }) { id } }',
          variables: { q: null },
        }),
      ],
      // A nullable variable with a default may stand for `if: Boolean!`; an explicit null is graphql-js's
      // error where the directive is collected: on the field below (data), or at the root (data null).
      [
        "@include given a null variable, on a root field's selection",
        () => ({
          query: 'query I($with: Boolean = true) { pets(first: 1) { nodes { id name @include(if: $with) } } }',
          variables: { with: null },
        }),
      ],
      [
        '@skip given a null variable, on a root field',
        () => ({
          query: 'query R($skip: Boolean = false) { pets(first: 1) @skip(if: $skip) { totalCount } }',
          variables: { skip: null },
        }),
      ],
      // Conditions read as written (jit-gateway.ts `decide`), against graphql-js's own reading.
      [
        'only literal conditions, on fields, an inline fragment and a spread',
        () => ({
          query: `{ pets(first: 2) { nodes { id @skip(if: true) name @include(if: true) ... on Pet @include(if: false) { status }
          ...C @skip(if: false) category @skip(if: true) @include(if: true) { id } } } }
        fragment C on Pet { inventory { quantity } }`,
        }),
      ],
      [
        'a literal and a variable on one selection, and variables sent to an operation that declares none',
        () => ({
          query: `query B($s: Boolean!, $i: Boolean) { pets(first: 2) { nodes { id @skip(if: $s) @include(if: true)
          name @skip(if: false) @include(if: $i) status @include(if: $i) } } }`,
          variables: { s: false, i: true, extra: 1 },
        }),
      ],
      [
        'an @include on a nullable variable that is not sent',
        () => ({ query: 'query U($i: Boolean) { pets(first: 1) { nodes { id name @include(if: $i) } } }' }),
      ],
      [
        '@skip(if: true) before an @include given null: the skip decides, no error',
        () => ({
          query:
            'query K($i: Boolean = true) { pets(first: 1) { nodes { id name @skip(if: true) @include(if: $i) } } }',
          variables: { i: null },
        }),
      ],
      [
        'no variables declared, some sent',
        () => ({ query: '{ pet(id: 1) { id } category(id: "2") { name } }', variables: { id: 'x' } }),
      ],
      [
        'introspection',
        () => ({ query: '{ __type(name: "Pet") { name fields { name type { name kind ofType { name } } } } }' }),
      ],
      ['the inventory summary', () => ({ query: '{ inventorySummary { status quantity } }' })],
    ];
    it.each(cases)('%s', async (_label, request) => {
      const [a, b] = [await post(jit, request()), await post(js, request())];
      expect(comparable(a)).toEqual(comparable(b));
    });
  });
});
