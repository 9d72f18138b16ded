/**
 * A nested page's rows leave PostgreSQL as text (one array literal per page, src/read/compiler.ts)
 * and are parsed back in the gateway: every value must come back exactly as stored, whatever it holds
 * (quotes, backslashes, braces, commas, the word NULL, an empty-looking name, non-ASCII), and every
 * column kind as its GraphQL type serialises it (ids, ints, booleans, instants with milliseconds,
 * null), at two levels of nesting. The reference reader (one statement per field, no arrays) gives
 * the expected answer; the stored values are also checked directly.
 */
import { makeCategory, makePet, insertOrder } from '../helpers/factories';
import { referenceSchema } from '../helpers/reference-reads';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

const doc = (query: string) => ({ toString: () => query });

/** Names a text array literal must quote or escape, and a few it must not confuse with NULL. */
const NAMES = [
  'NULL',
  'null',
  '"quoted"',
  'back\\slash \\" both',
  '{braces}, commas, and {{nested}}',
  'inner  double  space',
  "apostrophe's",
  'Ünïcødé 猫 🐈',
  'a',
];

const QUERY = doc(`query ($id: ID!) {
  category(id: $id) {
    name
    pets(first: 20) {
      totalCount
      nodes {
        id name status categoryId
        inventory { quantity status }
        orders(first: 5) { totalCount nodes { id petId quantity complete shipDate } }
      }
    }
  }
}`);

describe('values of nested pages read as text', () => {
  let database: TestDatabase;
  let compiled: TestApp;
  let reference: TestApp;
  let categoryId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    compiled = await createTestApp({ database, auth: 'admin' });
    reference = await createTestApp({ database, auth: 'admin', transformSchema: referenceSchema });
    const category = await makeCategory(compiled, '{"weird"}, \\ NULL');
    categoryId = category.id.toString();
    for (const [i, name] of NAMES.entries()) {
      const pet = await makePet(compiled, { name, categoryId: category.id, stock: i });
      if (i % 3 === 0) continue; // some pets without orders: an empty nested page
      await insertOrder(compiled, { petId: pet.id, quantity: i + 1, complete: i % 2 === 0, shipDate: null });
      await insertOrder(compiled, {
        petId: pet.id,
        quantity: 1,
        complete: true,
        shipDate: new Date(Date.UTC(2026, 10, 25, 13, 58, 17, 123 + i)),
      });
    }
  });
  afterAll(async () => {
    await reference?.close();
    await compiled?.close();
    await database?.destroy();
  });

  it('answers every value exactly as stored, as the reference reader does', async () => {
    const answer = await compiled.gql(QUERY, { id: categoryId });
    expect(answer.errors).toBeUndefined();
    const expected = await reference.gql(QUERY, { id: categoryId });
    expect(expected.errors).toBeUndefined();
    expect(answer.data).toEqual(expected.data);

    type Pet = {
      name: string;
      inventory: { quantity: number } | null;
      orders: { totalCount: number; nodes: { quantity: number; complete: boolean; shipDate: string | null }[] };
    };
    const category = (answer.data as { category: { name: string; pets: { totalCount: number; nodes: Pet[] } } })
      .category;
    expect(category.name).toBe('{"weird"}, \\ NULL');
    expect(category.pets.totalCount).toBe(NAMES.length);
    expect(category.pets.nodes.map((p) => p.name)).toEqual(NAMES);
    expect(category.pets.nodes.map((p) => p.inventory?.quantity)).toEqual(NAMES.map((_n, i) => i));
    const second = category.pets.nodes[1]!.orders;
    expect(second.totalCount).toBe(2);
    expect(second.nodes).toEqual([
      expect.objectContaining({ quantity: 1, complete: true, shipDate: '2026-11-25T13:58:17.124Z' }),
      expect.objectContaining({ quantity: 2, complete: false, shipDate: null }),
    ]);
    expect(category.pets.nodes[0]!.orders).toEqual({ totalCount: 0, nodes: [] });
  });
});
