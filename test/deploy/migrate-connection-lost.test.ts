/**
 * A migration whose connection is lost while it runs (a failover, a restart, pg_terminate_backend):
 * the migrate command (and a start that migrates) says which migration failed and what is left to
 * do, as for any other failure, never a bare driver error about the lost connection. PostgreSQL
 * only: a database of its own on TEST_DATABASE_URL's server (test/helpers/test-database.ts), dropped after.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, type Database } from '../../src/db/database';
import { migrate, MigrationError, type Migration } from '../../src/db/migrate';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(60_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('a migration whose connection is lost', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let url: string;
  let admin: Client;
  let db: Database;

  const mk = (name: string, text: string): Migration => ({ name, sql: text, checksum: crypto.randomUUID() });
  /** Ends the session running `statement` once it runs, as a failover would. */
  const terminateOnceRunning = async (statement: string) => {
    for (;;) {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
        [statement],
      );
      if (rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const recorded = async (name: string) =>
    admin.query('SELECT finished_at FROM "_prisma_migrations" WHERE migration_name = $1', [name]).then((r) => r.rows);

  beforeAll(async () => {
    database = await createPostgresDatabase();
    url = database.url;
    admin = new Client({ connectionString: url });
    await admin.connect();
    db = await createDatabase({ kind: 'postgres', url, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await admin?.end();
    await database?.drop();
  });

  it('in a transaction: says which migration failed, and nothing of it is recorded', async () => {
    const slow = mk('29991231000000_slow', 'SELECT pg_sleep(30);');
    const applying = migrate(db, [slow]);
    await terminateOnceRunning(slow.sql);
    const error = await applying.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toMatch(/^Migration 29991231000000_slow failed: terminating connection/);
    expect(await recorded(slow.name)).toEqual([]);
  });

  it('outside a transaction (CONCURRENTLY): says it is recorded as started, and how to resolve it', async () => {
    await admin.query('CREATE TABLE lost_index (v int)');
    const index = mk('29991231000001_lost_index', 'CREATE INDEX CONCURRENTLY lost_index_v ON lost_index (v);');
    // A transaction writing the table holds the index build at its start, until the session is ended.
    const writer = new Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query('INSERT INTO lost_index VALUES (1)');
      const applying = migrate(db, [index]);
      await terminateOnceRunning(index.sql);
      const error = await applying.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(
        /^Migration 29991231000001_lost_index failed outside a transaction: terminating connection.*recorded as started/,
      );
    } finally {
      await writer.end();
    }
    expect(await recorded(index.name)).toEqual([{ finished_at: null }]);
  });
});
