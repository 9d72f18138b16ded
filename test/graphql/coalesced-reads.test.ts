/**
 * Root lookups by key (`pet(id:)`, `order(id:)`, `category(id:)`, `inventory(petId:)`) of one turn
 * become one statement per text (src/db/coalesce.ts), on the embedded database and on PostgreSQL
 * (TEST_DATABASE_URL) alike: counted where the driver sends them, each answer checked against the
 * rows it asked for.
 */
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { usingPostgres } from '../helpers/test-database';
import { driverStatements } from '../helpers/driver-statements';
import { makeCategory, makePet } from '../helpers/factories';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;

const PET = doc('query ($id: ID!) { pet(id: $id) { id name category { name } inventory { quantity } } }');

describe('root lookups by key, coalesced', () => {
  let t: TestApp;
  const pets: { id: string; name: string }[] = [];
  let categoryName: string;
  /** The lookups of pets by key the driver was asked to send since the last `reset`. */
  let sent: () => string[];
  let reset: () => void;
  /** Every statement the driver was asked to send since the last `reset`. */
  let all: () => string[];

  beforeAll(async () => {
    t = await createTestApp();
    const category = await makeCategory(t);
    categoryName = category.name;
    for (let i = 0; i < 12; i++) {
      const pet = await makePet(t, { categoryId: category.id, stock: i });
      pets.push({ id: pet.id.toString(), name: pet.name });
    }
    const driver = driverStatements(t.db);
    sent = () => driver.texts().filter((text) => /FROM pets WHERE id = /.test(text));
    reset = driver.reset;
    all = driver.texts;
  });
  afterAll(async () => t.close());

  beforeEach(() => reset());

  it('answers each of many concurrent lookups with its own row; on PostgreSQL in fewer statements than requests', async () => {
    const answers = await Promise.all(pets.map((p) => t.gqlOk(PET, { id: p.id })));
    answers.forEach((answer, i) => {
      expect(answer).toEqual({
        pet: { id: pets[i]!.id, name: pets[i]!.name, category: { name: categoryName }, inventory: { quantity: i } },
      });
    });
    // A lookup goes at once while nothing is in flight on its pool: PGlite, in process, answers each
    // before the next request reaches its read; a server's round trip lets the next ones join.
    if (usingPostgres()) expect(sent().length).toBeLessThan(pets.length);
    else expect(sent().length).toBeLessThanOrEqual(pets.length);
  });

  it('answers lookups of one request in one statement per selection, a missing key as null', async () => {
    const [a, b] = pets;
    const answer = await t.gqlOk(
      doc(`query ($a: ID!, $b: ID!) {
        a: pet(id: $a) { id name }
        b: pet(id: $b) { id name }
        missing: pet(id: "999999") { id name }
        again: pet(id: $a) { id name }
        other: pet(id: $b) { id }
      }`),
      { a: a!.id, b: b!.id },
    );
    expect(answer).toEqual({
      a: { id: a!.id, name: a!.name },
      b: { id: b!.id, name: b!.name },
      missing: null,
      again: { id: a!.id, name: a!.name },
      other: { id: b!.id },
    });
    // The first lookup goes at once; the others, asked while it is in flight, are held for the turn:
    // `{ id name }` three more times in one statement over their keys, `{ id }` alone as it was.
    expect(sent()).toHaveLength(3);
    expect(sent().filter((text) => text.includes('= ANY('))).toHaveLength(1);
  });

  it('sends a lookup alone in its turn as a lookup of one key (`= $1`), as before coalescing', async () => {
    expect(await t.gqlOk(PET, { id: pets[3]!.id })).toMatchObject({ pet: { id: pets[3]!.id } });
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatch(/FROM pets WHERE id = \$1\)/);
    expect(sent()[0]).not.toContain('ANY(');
  });

  it('sends coalesced lookups as one statement over their keys (`= ANY`), relations joined as probes', async () => {
    const [a, b, c] = pets;
    const answer = await t.gqlOk(
      doc(`query ($a: ID!, $b: ID!, $c: ID!) {
        a: pet(id: $a) { id category { name } inventory { quantity } }
        b: pet(id: $b) { id category { name } inventory { quantity } }
        c: pet(id: $c) { id category { name } inventory { quantity } }
      }`),
      { a: a!.id, b: b!.id, c: c!.id },
    );
    expect(answer).toEqual({
      a: { id: a!.id, category: { name: categoryName }, inventory: { quantity: 0 } },
      b: { id: b!.id, category: { name: categoryName }, inventory: { quantity: 1 } },
      c: { id: c!.id, category: { name: categoryName }, inventory: { quantity: 2 } },
    });
    expect(sent()).toHaveLength(2);
    expect(sent()[0]).not.toContain('ANY(');
    expect(sent()[1]).toContain('WHERE id = ANY($1::bigint[])');
    expect(sent()[1]).toContain('LIMIT 1');
  });

  it('shares one page statement among identical concurrent page reads, and never between different pages', async () => {
    const PAGE = doc('query ($first: Int!) { pets(first: $first) { nodes { id name inventory { quantity } } } }');
    const pages = () => all().filter((text) => /FROM pets/.test(text) && !/WHERE id = /.test(text));
    const firsts = [3, 3, 3, 3, 3, 3, 5, 5, 5, 5, 5, 5];
    const answers = await Promise.all(firsts.map((first) => t.gqlOk(PAGE, { first })));
    const expected = (first: number) => ({
      pets: { nodes: pets.slice(0, first).map((p, i) => ({ id: p.id, name: p.name, inventory: { quantity: i } })) },
    });
    answers.forEach((answer, i) => expect(answer).toEqual(expected(firsts[i]!)));
    // Each answer is its own object graph, built from the shared rows.
    expect(answers[1]).not.toBe(answers[0]);
    // PGlite, in process, answers each page before the next request reaches its read; on a server,
    // those asked while one is in flight wait for the turn and share a statement.
    if (usingPostgres()) expect(pages().length).toBeLessThan(firsts.length);
    else expect(pages().length).toBeLessThanOrEqual(firsts.length);
    // Two page sizes are two statements' worth of values: never one answered with the other's rows.
    expect(pages().length).toBeGreaterThanOrEqual(2);
  });
});
