/**
 * What the SQL reader and the writer give back (Database.sql, Database.writer): the same types on
 * the embedded database and on PostgreSQL, as their contract says. int8 as bigint (exact beyond
 * 2^53, where a number is not), timestamptz as Date.
 */
import { Prisma } from '../../src/generated/prisma/client';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

describe('rows of the SQL reader and the writer', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.destroy());

  const BIG = 9007199254740993n; // 2^53 + 1: a number would read it as 2^53
  const statement = () =>
    Prisma.sql`SELECT ${BIG}::int8 AS big, 7::int8 AS small, 3::int AS int, '2030-01-02T03:04:05.678Z'::timestamptz AS at`;
  const expected = { big: BIG, small: 7n, int: 3, at: new Date('2030-01-02T03:04:05.678Z') };

  it('gives int8 as bigint and timestamptz as Date from the reader', async () => {
    expect(await database.db.sql.query(statement())).toEqual([expected]);
  });

  it('gives them alike from the writer', async () => {
    expect(await database.db.writer.query(statement())).toEqual([expected]);
  });
});
