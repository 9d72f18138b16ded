import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory } from '../helpers/factories';

const GetPet = graphql(`
  query PetById($id: ID!) {
    pet(id: $id) {
      id
      categoryId
      name
      category {
        id
      }
    }
  }
`);

describe('64-bit ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reads back an id above 2^53 exactly', async () => {
    const category = await makeCategory(t);
    const big = 2n ** 53n + 1n; // 9007199254740993: not representable as a double
    await t.db.prisma.pet.create({ data: { id: big, name: 'Big', categoryId: category.id } });
    const data = await t.gqlOk(GetPet, { id: big.toString() });
    expect(data.pet).toEqual({
      id: '9007199254740993',
      categoryId: category.id.toString(),
      name: 'Big',
      category: { id: category.id.toString() },
    });
    const max = 2n ** 63n - 1n;
    await t.db.prisma.pet.create({ data: { id: max, name: 'Max', categoryId: category.id } });
    expect((await t.gqlOk(GetPet, { id: max.toString() })).pet?.id).toBe('9223372036854775807');
  });

  it.each([
    ['letters', 'abc'],
    ['a decimal point', '1.5'],
    ['a value above int64', '9223372036854775808'],
    ['whitespace', ' 1'],
    ['an empty string', ''],
    ['a number beyond 2^53', 9007199254740993],
    ['a boolean', true],
  ])('rejects an id of %s with VALIDATION_FAILED and HTTP 400', async (_label, id) => {
    const reply = await t.gql(GetPet, { id: id as string });
    expect(reply.status).toBe(400);
    expect(reply.errors?.[0]).toMatchObject({
      message: expect.stringContaining('64-bit integer'),
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
  });

  it('accepts an integer literal in the query text', async () => {
    const category = await makeCategory(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      payload: { query: `{ category(id: ${category.id}) { id } }` },
    });
    expect(res.json()).toEqual({ data: { category: { id: category.id.toString() } } });
  });
});
