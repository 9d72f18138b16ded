/**
 * Reads no one wrote by hand (issue 20 item 5): a few hundred operations from the seeded generator
 * (test/helpers/query-generator.ts) over varied data, each sent to two gateways on ONE database, one
 * reading through the read compiler (as shipped), the other through the reference reader (a naive
 * reader per field generated from the relation table, test/helpers/reference-reads.ts). Asserts
 * that both answer the same (data, errors with their paths and codes, HTTP status), and counts the
 * SQL statements of the planner's answer the way sql-count.test.ts does: one per root field.
 *
 * The seed is in the suite's name; to replay: GEN_SEED=<seed> [GEN_READS=n] [GEN_ONLY=index]
 * npm test -- test/graphql/generated-reads.test.ts. On PostgreSQL: TEST_DATABASE_URL=... as usual.
 */
import { createReadGenerator, operationSeed, primeReadPool, type GeneratedRead } from '../helpers/query-generator';
import { referenceSchema } from '../helpers/reference-reads';
import { createTestApp, type GraphQLErrorJson, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { insertOrder, makeCategory, makePet, placeOrder } from '../helpers/factories';

const SEED = Number(process.env.GEN_SEED ?? 20_261_123) >>> 0;
const READS = Number(process.env.GEN_READS ?? 300);
const ONLY = process.env.GEN_ONLY === undefined ? null : Number(process.env.GEN_ONLY);

interface Answer {
  status: number;
  data: unknown;
  errors: { message: string; path?: (string | number)[]; code: string }[] | undefined;
}

interface Outcome {
  index: number;
  read: GeneratedRead;
  on: Answer;
  /** The reference reader's answer. */
  off: Answer;
  /** SQL statements the planner's answer took (API-key bookkeeping aside). */
  statements: number;
  /** Root fields answered without an error under them: each must take exactly one statement. */
  cleanRoots: number;
}

/** Varied data: empty and full categories, every status, stock 0..n, orders in every state, big ids. */
async function seedVariedData(t: TestApp): Promise<void> {
  const categories = [await makeCategory(t, 'Empty category')];
  for (let c = 0; c < 10; c++) categories.push(await makeCategory(t));
  await t.services.categories.update(categories[3]!.id, { description: 'Described: 100% _real_ pets' });
  const big = await t.db.prisma.category.create({ data: { id: 2n ** 53n + 11n, name: 'Category above 2^53' } });
  categories.push(big);
  const names = ['Rex', 'rex', 'Élodie', '100% cat', 'under_score', 'Zed', 'a', 'Mia'];
  const statuses = ['available', 'pending', 'sold'] as const;
  const pets = [];
  for (let i = 0; i < 70; i++) {
    pets.push(
      await makePet(t, {
        name: `${names[i % names.length]} ${i % 7}`, // repeated names: ties broken by id
        categoryId: categories[1 + (i % (categories.length - 1))]!.id,
        status: statuses[i % 3] === 'pending' ? 'available' : statuses[i % 3],
        stock: i % 4 === 0 ? 0 : i,
      }),
    );
  }
  for (const id of [2n ** 53n + 1n, 2n ** 63n - 1n]) {
    pets.push(
      await t.db.prisma.pet.create({
        data: { id, name: `Big ${id}`, categoryId: big.id, inventory: { create: { quantity: 3 } } },
      }),
    );
  }
  // Orders through the store rules (stock taken, some pets PENDING), and rows no rule allows.
  for (let i = 0; i < 40; i++) {
    const pet = pets[(i * 7) % 70]!;
    if (i % 4 !== 0) await placeOrder(t, pet.id, 1).catch(() => undefined);
  }
  for (let i = 0; i < 20; i++) {
    await insertOrder(t, {
      petId: i % 10 === 0 ? null : pets[(i * 3) % pets.length]!.id,
      quantity: 1 + (i % 5),
      complete: i % 2 === 0,
      shipDate: i % 3 === 0 ? new Date(Date.UTC(2026, 0, 1 + i)) : null,
    });
  }
}

const normalize = (reply: Awaited<ReturnType<TestApp['gql']>>): Answer => ({
  status: reply.status,
  data: reply.data,
  errors: reply.errors?.map((e: GraphQLErrorJson) => ({ message: e.message, path: e.path, code: e.extensions.code })),
});

/** The response keys under which a root field answered with an error below it. */
const erroredRoots = (answer: Answer) => new Set((answer.errors ?? []).map((e) => e.path?.[0]).filter(Boolean));

const replay = (o: Outcome) =>
  `read #${o.index} (GEN_SEED=${SEED} GEN_ONLY=${o.index}, operation seed ${o.read.seed}):\n${o.read.query}\nvariables: ${JSON.stringify(o.read.variables)}`;

describe(`generated reads (seed ${SEED}, ${ONLY === null ? READS : 1} reads): the read compiler against the reference reader`, () => {
  let database: TestDatabase;
  let on: TestApp;
  let off: TestApp;
  const outcomes: Outcome[] = [];
  let rootFieldNames: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    on = await createTestApp({ database, auth: 'admin' });
    off = await createTestApp({ database, auth: 'admin', transformSchema: referenceSchema });
    await seedVariedData(on);
    const pool = await primeReadPool(async (query, variables) =>
      normalize(await on.gql({ toString: () => query }, variables)),
    );
    const generator = createReadGenerator({ pool });
    rootFieldNames = generator.rootFieldNames;
    const indexes = ONLY === null ? [...Array(READS).keys()] : [ONLY];
    for (const index of indexes) {
      const read = generator.generate(operationSeed(SEED, index));
      const doc = { toString: () => read.query };
      database.sql.reset();
      const answerOn = normalize(await on.gql(doc, read.variables));
      // The key's last-used time is written at most once a minute, whatever the read.
      // On PostgreSQL that write is wrapped in its own BEGIN/COMMIT, left out with it.
      const statements = database.sql.statements.filter(
        (s) => !s.includes('"api_keys"') && !/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(s),
      ).length;
      const answerOff = normalize(await off.gql(doc, read.variables));
      const errored = erroredRoots(answerOn);
      outcomes.push({
        index,
        read,
        on: answerOn,
        off: answerOff,
        statements,
        // No data (null after an execution error, absent after a validation error): nothing ran.
        cleanRoots: answerOn.data == null ? 0 : read.rootKeys.filter((k) => !errored.has(k)).length,
      });
    }
  }, 600_000);

  afterAll(async () => {
    await on?.app.close();
    await off?.app.close();
    await database?.destroy();
  });

  it('answers every generated read as the reference reader does (data, errors and paths, status)', () => {
    const differing = outcomes.filter((o) => !isDeepEqual(o.on, o.off));
    const report = differing
      .slice(0, 3)
      .map((o) => `${replay(o)}\ncompiler:  ${JSON.stringify(o.on)}\nreference: ${JSON.stringify(o.off)}`);
    expect({ differing: differing.length, first: report }).toEqual({ differing: 0, first: [] });
  });

  it('generates every root field, errors and successes, over the run', () => {
    if (ONLY !== null) return;
    const seen = new Set(outcomes.flatMap((o) => o.read.rootFields));
    expect([...seen].sort()).toEqual([...rootFieldNames].sort());
    expect(outcomes.filter((o) => o.on.errors).length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.on.errors).length).toBeGreaterThan(READS / 2);
  });

  // The read compiler's promise (docs/read-compiler.md): on failure the message gives the
  // distribution measured, and the first reads that took more or fewer.
  it('reads every generated operation in one SQL statement per root field', () => {
    const over = outcomes.filter((o) => o.statements > o.read.rootFields.length || o.statements < o.cleanRoots);
    const perRequest = new Map<number, number>();
    for (const o of outcomes) perRequest.set(o.statements, (perRequest.get(o.statements) ?? 0) + 1);
    const roots = outcomes.reduce((n, o) => n + o.read.rootFields.length, 0);
    const statements = outcomes.reduce((n, o) => n + o.statements, 0);
    const histogram = [...perRequest].sort((a, b) => a[0] - b[0]).map(([k, n]) => `${k}: ${n}`);
    const summary = {
      wrong: over.length,
      first: over.slice(0, 3).map((o) => `${o.statements} statements for ${o.cleanRoots} root field(s); ${replay(o)}`),
      distribution: `${outcomes.length} reads, ${roots} root fields, ${statements} statements; per request (statements: reads) ${histogram.join(', ')}`,
    };
    // The distribution is expected as it is: a failure prints it among the lines that agree.
    expect(summary).toEqual({ wrong: 0, first: [], distribution: summary.distribution });
  });
});

/** Errors in a stable order: the order in which resolvers fail is not part of the answer. */
function comparable(answer: Answer): Answer {
  const errors = answer.errors && [...answer.errors].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return { ...answer, errors };
}

function isDeepEqual(a: Answer, b: Answer): boolean {
  return JSON.stringify(comparable(a)) === JSON.stringify(comparable(b));
}
