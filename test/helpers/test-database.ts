/**
 * A database of its own for each test suite: a copy of the migrated PGlite template by default, or a
 * freshly created (and afterwards dropped) PostgreSQL database when TEST_DATABASE_URL is set.
 * Every SQL statement sent (by Prisma or by the SQL reader) is counted (`sql.count`) for the N+1 tests.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase, type Database } from '../../src/db/database';
import { migrate } from '../../src/db/migrate';
import type { DatabaseConfig } from '../../src/config';
import { prepareDataDir } from './server-process';

export interface SqlCounter {
  count: number;
  statements: string[];
  /** The SQL reader's statements with their values (to EXPLAIN them). */
  reads: { text: string; values: readonly unknown[] }[];
  reset(): void;
}

export interface TestDatabase {
  db: Database;
  config: DatabaseConfig;
  sql: SqlCounter;
  /** Closes the connection and removes the database. */
  destroy(): Promise<void>;
}

export const usingPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);

/**
 * TEST_PGBOUNCER=1 (with TEST_DATABASE_URL): the gateway reaches each suite's database through one
 * PgBouncer in transaction mode (started by global-setup.ts) with `?pgbouncer=true`, and the database
 * itself through DATABASE_DIRECT_URL, as production behind a pooler does. The tests' own connections
 * stay direct.
 */
export const usingPgBouncer = (): boolean =>
  usingPostgres() && process.env.TEST_PGBOUNCER === '1' && Boolean(process.env.PETSTORE_TEST_PGBOUNCER_PORT);

/** How the gateway reaches the database at `url`: directly, or through the run's PgBouncer. */
export function gatewayDatabase(url: string): { env: Record<string, string>; config: DatabaseConfig } {
  if (!usingPgBouncer()) return { env: { DATABASE_URL: url }, config: { kind: 'postgres', url, poolSize: 10 } };
  const pooled = new URL(url);
  pooled.host = `127.0.0.1:${process.env.PETSTORE_TEST_PGBOUNCER_PORT}`;
  pooled.searchParams.set('pgbouncer', 'true');
  return {
    env: { DATABASE_URL: pooled.toString(), DATABASE_DIRECT_URL: url },
    config: { kind: 'postgres', url: pooled.toString(), poolSize: 10, pgbouncer: true, directUrl: url },
  };
}

function counter(): SqlCounter {
  const c: SqlCounter = {
    count: 0,
    statements: [],
    reads: [],
    reset() {
      c.count = 0;
      c.statements = [];
      c.reads = [];
    },
  };
  return c;
}

const countingOptions = { log: [{ emit: 'event' as const, level: 'query' as const }] };

/** Statements of the SQL reader (reads that skip Prisma Client) are counted with Prisma's. */
const readerCounting = (sql: SqlCounter) => (text: string, values: readonly unknown[]) => {
  sql.count++;
  sql.statements.push(text);
  sql.reads.push({ text, values });
};

function attach(db: Database, sql: SqlCounter): void {
  (db.prisma as unknown as { $on(e: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => {
    // The PGlite adapter reports an implicit COMMIT of each transaction as a statement; it sends none.
    if (e.query.startsWith('-- Implicit')) return;
    sql.count++;
    sql.statements.push(e.query);
  });
}

/** A fresh PostgreSQL database on the TEST_DATABASE_URL server; returns its URL and a dropper. */
export async function createPostgresDatabase(): Promise<{
  /** The database itself (the tests' own connections). */
  url: string;
  /** DATABASE_URL (and DATABASE_DIRECT_URL) of a gateway on it: through PgBouncer under TEST_PGBOUNCER=1. */
  env: Record<string, string>;
  config: DatabaseConfig;
  drop(): Promise<void>;
}> {
  const base = new URL(process.env.TEST_DATABASE_URL!);
  const name = `petstore_t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    ...gatewayDatabase(url.toString()),
    async drop() {
      const c = new Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (usingPostgres()) {
    const pg = await createPostgresDatabase();
    return openTestDatabase(pg.config, () => pg.drop());
  }
  // A copy of the run's migrated data directory (global-setup.ts): opening an existing database costs
  // about half of what loading a dump of it into memory does, and a tenth of creating one.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-suite-'));
  prepareDataDir(dataDir);
  return openTestDatabase({ kind: 'pglite', dataDir }, async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
}

/** Opens `config` migrated, its statements counted; `cleanup` runs after it is closed (even on error). */
async function openTestDatabase(config: DatabaseConfig, cleanup: () => Promise<void>): Promise<TestDatabase> {
  const sql = counter();
  const db = await createDatabase(config, { prismaOptions: countingOptions, onReaderStatement: readerCounting(sql) });
  await migrate(db);
  attach(db, sql);
  return {
    db,
    config,
    sql,
    async destroy() {
      try {
        await db.close();
      } finally {
        await cleanup();
      }
    },
  };
}
