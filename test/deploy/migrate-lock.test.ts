/**
 * The migrate command beside another migrator: the migrations' advisory lock is waited for as long
 * as the other one holds it (a migration may run for minutes), never cut at DB_STATEMENT_TIMEOUT_MS,
 * the bound of a request's statements, and never reported as a refused login. PostgreSQL only: the
 * database is one of its own on TEST_DATABASE_URL's server (test/helpers/test-database.ts), dropped after.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, MIGRATION_LOCK_KEY } from '../../src/db/database';
import { migrate, pendingMigrations, readMigrations, type Migration } from '../../src/db/migrate';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { runScript } from '../helpers/server-process';
import { NEEDS_PGBOUNCER } from '../helpers/pg-servers';
import { createPostgresDatabase, usingPgBouncer, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('the migrate command while another migrator holds the lock', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let url: string;
  const sql = async (target: string, text: string) => {
    const c = new Client({ connectionString: target });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    database = await createPostgresDatabase();
    url = database.url;
  });
  afterAll(() => database?.drop());

  it('waits past DB_STATEMENT_TIMEOUT_MS for the lock, then applies the migrations', async () => {
    const other = new Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      const running = runScript('src/db/migrate.cli.js', [], { DATABASE_URL: url, DB_STATEMENT_TIMEOUT_MS: '1000' });
      // The other migrator holds the lock three times the statement timeout, then finishes.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await other.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      const result = await running;
      expect(result.stderr).not.toContain('statement timeout');
      expect(result.stderr).toContain('another process is migrating the database');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^applied \d+ migration\(s\): /);
    } finally {
      await other.end();
    }
  });

  it('never deadlocks a CREATE INDEX CONCURRENTLY migration: a process starting meanwhile waits, and it finishes', async () => {
    const config = { kind: 'postgres' as const, url, poolSize: 2 };
    const migrating = await createDatabase(config);
    const starting = await createDatabase(config);
    try {
      const mk = (name: string, sql: string): Migration => ({ name, sql, checksum: crypto.randomUUID() });
      // An index that takes PostgreSQL a moment to build, long enough for the other process to be waiting.
      const table = mk(
        '29991231000000_slow_table',
        'CREATE TABLE slow_index (v text); INSERT INTO slow_index SELECT md5(g::text) FROM generate_series(1, 400000) g;',
      );
      const index = mk('29991231000001_slow_index', 'CREATE INDEX CONCURRENTLY slow_index_v ON slow_index (v);');
      const migrations = [...readMigrations(), table, index];
      await migrate(migrating, migrations.slice(0, -1));
      // A gateway starting with MIGRATE_ON_START=false while the index is built: it waits for the lock.
      let checked: Promise<Migration[]> | undefined;
      const applied = await migrate(migrating, migrations, (m) => {
        if (m === index) checked = pendingMigrations(starting, migrations);
      });
      expect(applied).toEqual([index.name]);
      expect(await checked).toEqual([]);
      expect(
        await sql(
          url,
          `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'slow_index_v'`,
        ),
      ).toEqual([{ valid: true }]);
    } finally {
      await migrating.close();
      await starting.close();
    }
  });
});

describeIf(usingPgBouncer(), NEEDS_PGBOUNCER)('the migrate command behind PgBouncer, without a direct URL', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let url: string;
  /** DATABASE_URL through the pooler, and no DATABASE_DIRECT_URL. */
  let pooled: URL;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    url = database.url;
    pooled = new URL(url);
    pooled.host = `127.0.0.1:${process.env.PETSTORE_TEST_PGBOUNCER_PORT}`;
    pooled.searchParams.set('pgbouncer', 'true');
  });
  afterAll(() => database?.drop());

  it('waits past DB_STATEMENT_TIMEOUT_MS for a migrator holding the lock, then applies the migrations', async () => {
    // Each migration's transaction takes the lock there (a session's lock would stay on a server connection).
    const other = new Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const running = runScript('src/db/migrate.cli.js', [], {
        DATABASE_URL: pooled.toString(),
        DB_STATEMENT_TIMEOUT_MS: '1000',
      });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await other.query('COMMIT');
      const result = await running;
      expect(result.stderr).not.toContain('statement timeout');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^applied \d+ migration\(s\): /);
    } finally {
      await other.end();
    }
  });
});
