/**
 * The SQL reader names (prepares) only hot statement texts, and a bounded number of them: the read
 * compiler makes one text per document shape and clients choose shapes, so naming every text would
 * grow every server connection's prepared statements without bound.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { createDatabase, type Database } from '../../src/db/database';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { createPostgresDatabase, usingPgBouncer, usingPostgres } from '../helpers/test-database';

describeIf(usingPostgres() && !usingPgBouncer(), NEEDS_POSTGRES)('prepared reader statements', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Database;
  // One connection, so that what it holds is what every connection would hold.
  beforeAll(async () => {
    database = await createPostgresDatabase();
    db = await createDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const prepared = async () =>
    Number((await db.sql.query<{ n: bigint }>(Prisma.sql`SELECT count(*) AS n FROM pg_prepared_statements`))[0]!.n);
  /** A distinct statement text for each i, as distinct document shapes make. */
  const shape = (i: number) => Prisma.sql`SELECT ${i}::int AS v${Prisma.raw(String(i))}`;

  it('prepares a text only once it is seen again', async () => {
    await prepared(); // the counting statement itself becomes hot (and prepared) here
    const before = await prepared();
    await db.sql.query(shape(0));
    expect(await prepared()).toBe(before);
    await db.sql.query(shape(0));
    await db.sql.query(shape(0));
    expect(await prepared()).toBeGreaterThan(before);
  });

  it('keeps the prepared statements of a connection bounded whatever the number of shapes', async () => {
    for (let i = 1; i <= 700; i++) {
      await db.sql.query(shape(i));
      await db.sql.query(shape(i));
    }
    const held = await prepared();
    expect(held).toBeLessThanOrEqual(500);
    expect(held).toBeGreaterThan(100);
  }, 120_000);
});
