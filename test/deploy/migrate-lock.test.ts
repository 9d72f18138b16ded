/**
 * The migrate command beside another migrator: the migrations' advisory lock is waited for as long
 * as the other one holds it (a migration may run for minutes), never cut at DB_STATEMENT_TIMEOUT_MS,
 * the bound of a request's statements, and never reported as a refused login. PostgreSQL only: the
 * database is created on TEST_DATABASE_URL's server (named after its database) and dropped after.
 */
import crypto from 'node:crypto';
import { Client } from 'pg';
import { MIGRATION_LOCK_KEY } from '../../src/db/database';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { runScript } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('the migrate command while another migrator holds the lock', () => {
  // (Read when the suite is skipped too: Jest collects a skipped describe's body.)
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/unused');
  const dbName = `${base.pathname.slice(1)}_migrate_lock_${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
  const url = Object.assign(new URL(base), { pathname: `/${dbName}` }).toString();

  const sql = async (target: string, text: string) => {
    const c = new Client({ connectionString: target });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };

  beforeAll(() => sql(base.toString(), `CREATE DATABASE "${dbName}"`));
  afterAll(() => sql(base.toString(), `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`));

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
});
