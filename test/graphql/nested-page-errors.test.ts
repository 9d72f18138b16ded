/**
 * Two aliases of one nested connection with different arguments are two reads: when one is refused,
 * the error is reported at the alias that asked for it, and the other alias is not blamed (issue 20,
 * "a wrong error path"), read by the compiler and by the reference reader alike.
 */
import { makeCategory, makePet } from '../helpers/factories';
import { referenceSchema } from '../helpers/reference-reads';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app';

const doc = (query: string) => ({ toString: () => query });

describe.each<[string, TestAppOptions]>([
  ['the read compiler', {}],
  ['the reference reader', { transformSchema: referenceSchema }],
])('errors of nested pages under aliases, read by %s', (_label, options) => {
  let t: TestApp;
  let categoryId: string;
  beforeAll(async () => {
    t = await createTestApp(options);
    const category = await makeCategory(t);
    categoryId = category.id.toString();
    for (let i = 0; i < 3; i++) await makePet(t, { categoryId: category.id });
  });
  afterAll(() => t.close());

  it('reports a refused page at its own alias, not at a valid sibling', async () => {
    const reply = await t.gql(
      doc(`query ($id: ID!) {
        category(id: $id) {
          a: pets(first: 1) { nodes { id } }
          b: pets(first: 101) { nodes { id } }
        }
      }`),
      { id: categoryId },
    );
    expect(reply.errors).toEqual([
      expect.objectContaining({
        path: ['category', 'b'],
        message: expect.stringContaining('first'),
        extensions: expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      }),
    ]);
  });

  it('answers the valid alias when the refused one is under a nullable parent', async () => {
    // `category` is nullable and `pets` is not: the refusal nulls the category, with one error at `b`.
    const reply = await t.gql(
      doc(`query ($id: ID!) {
        category(id: $id) { a: pets(first: 2) { nodes { id } } }
        other: category(id: $id) { b: pets(first: 0) { nodes { id } } }
      }`),
      { id: categoryId },
    );
    expect(reply.data).toEqual({ category: { a: { nodes: [expect.anything(), expect.anything()] } }, other: null });
    expect(reply.errors?.map((e) => e.path)).toEqual([['other', 'b']]);
  });
});
