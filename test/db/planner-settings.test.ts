/**
 * The gateway's sessions on PostgreSQL run with the planner settings of PLANNER_OPTIONS
 * (src/db/database.ts): `enable_memoize=off`, because a page's to-one joins are probed once per row
 * of a page and a Memoize cache in front of them never hits (bench/notes/explain.md, round 8). Sent as
 * a startup parameter, so a session has it from its first statement: the reader's statements and
 * Prisma's alike. Behind a transaction-mode pooler no startup parameter is sent (docs/postgres-topologies.md).
 */
import { Prisma } from '../../src/generated/prisma/client';
import { createDatabase, type Database } from '../../src/db/database';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { createPostgresDatabase, usingPgBouncer, usingPostgres } from '../helpers/test-database';

describeIf(usingPostgres() && !usingPgBouncer(), NEEDS_POSTGRES)('planner settings of the gateway sessions', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Database;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    db = await createDatabase({ kind: 'postgres', url: database.url, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("turns Memoize off in the reader's sessions and in Prisma's", async () => {
    const [read] = await db.sql.query<{ memoize: string }>(
      Prisma.sql`SELECT current_setting('enable_memoize') AS memoize`,
    );
    expect(read!.memoize).toBe('off');
    const [written] = await db.prisma.$queryRaw<
      { memoize: string }[]
    >`SELECT current_setting('enable_memoize') AS memoize`;
    expect(written!.memoize).toBe('off');
  });

  it('leaves every other session of the database as it was', async () => {
    const { Client } = await import('pg');
    const other = new Client({ connectionString: database.url });
    await other.connect();
    try {
      expect((await other.query("SELECT current_setting('enable_memoize') AS m")).rows[0].m).toBe('on');
    } finally {
      await other.end();
    }
  });
});
