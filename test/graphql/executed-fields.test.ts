/**
 * The read compiler follows the field set that executes the document, whatever executes it: with
 * graphql-jit (the default) a skipped selection is absent, costs no statement, and a read answers the
 * same bytes compiled and read field by field (the reference reader, test/helpers/reference-reads.ts),
 * errors and their order included.
 */
import type { LightMyRequestResponse } from 'fastify';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { referenceSchema } from '../helpers/reference-reads';

async function post(t: TestApp, query: string, variables?: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...t.admin },
    payload: { query, variables },
  });
}

describe('the executed field set, graphql-jit on', () => {
  let compiled: TestApp;
  let loaded: TestApp;
  let js: TestApp;
  beforeAll(async () => {
    compiled = await createTestApp({ env: { GRAPHQL_JIT: 'true' } });
    loaded = await createTestApp({
      database: compiled,
      transformSchema: referenceSchema,
      env: { GRAPHQL_JIT: 'true' },
    });
    js = await createTestApp({ database: compiled, transformSchema: referenceSchema, env: { GRAPHQL_JIT: 'false' } });
    const category = await makeCategory(compiled, 'Executed fields');
    for (let i = 0; i < 3; i++) {
      const pet = await makePet(compiled, { categoryId: category.id, stock: i });
      for (let j = 0; j < 3; j++) await insertOrder(compiled, { petId: pet.id });
    }
    // The admin key's first use reads it; from then on the process has it cached.
    await post(compiled, '{ __typename }');
  });
  afterAll(async () => {
    await js.app.close();
    await loaded.app.close();
    await compiled.close();
  });

  // [document, the field it must not answer]
  const skipped: [string, string][] = [
    ['{ pet(id: 1) { category { name } category @skip(if: true) { ... { description } } } }', 'description'],
    ['{ pet(id: 1) { category @skip(if: true) { ... { description } } category { name } } }', 'description'],
    ['{ pets(first: 2) { nodes { id category { id } category @skip(if: true) { ... { name } } } } }', 'name'],
    ['{ pets(first: 2) { nodes { id category @skip(if: true) { ... { name } } category { id } } } }', 'name'],
    [
      '{ pets(first: 2) { nodes { category { id } category @include(if: false) { ...C } } } } fragment C on Category { name }',
      'name',
    ],
    [
      'query ($skip: Boolean!) { pets(first: 2) { nodes { category { id } ... @skip(if: $skip) { category { name } } } } }',
      'name',
    ],
    // A named fragment used under an included and a skipped selection is answered where included.
    [
      'query ($include: Boolean!) { a: pet(id: 1) { ... @include(if: $include) { ...P } } b: pet(id: 2) { ...P } } fragment P on Pet { status }',
      'never',
    ],
    // Nothing left to select below a field: graphql-js answers an empty object.
    ['{ pet(id: 1) { category @skip(if: true) { name } } }', 'category'],
  ];

  it.each(skipped)('leaves a skipped selection out: %s', async (query, absent) => {
    const variables = { skip: true, include: false };
    const expected = await post(js, query, variables);
    expect(expected.statusCode).toBe(200);
    expect(expected.json()).not.toHaveProperty('errors');
    expect(expected.body).not.toContain(`"${absent}"`);
    for (const t of [compiled, loaded]) {
      const res = await post(t, query, variables);
      expect({ status: res.statusCode, body: res.body }).toEqual({ status: 200, body: expected.body });
    }
  });

  it.each(skipped)('reads a skipped selection in no second statement: %s', async (query) => {
    compiled.sql.reset();
    const res = await post(compiled, query, { skip: true, include: false });
    expect(res.statusCode).toBe(200);
    // One statement per root field.
    expect(compiled.sql.count).toBe(query.includes(' b: pet') ? 2 : 1);
  });

  it('orders the errors of nested pages alike, compiled and loaded', async () => {
    const query =
      '{ pets(first: 2) { nodes { orders(first: 2) { nodes { pet { orders(after: "x") { totalCount } } } } } } }';
    const a = await post(compiled, query);
    const b = await post(loaded, query);
    const c = await post(js, query);
    expect(a.json().errors).toHaveLength(4);
    expect(a.body).toBe(b.body);
    expect(a.body).toBe(c.body);
  });
});
