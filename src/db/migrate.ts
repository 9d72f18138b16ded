/**
 * The migration runner. Prisma's own `migrate deploy` needs a native schema engine downloaded from
 * Prisma's host, where the service must install and run from the npm registry alone
 * (docs/operations.md), so the service applies Prisma's migration folders itself: in name order, each in its own transaction, recorded in `_prisma_migrations` with the same
 * columns and SHA-256 checksums that Prisma writes, so `prisma migrate status` agrees elsewhere.
 * A migration that PostgreSQL refuses to run in a transaction (`CREATE INDEX CONCURRENTLY`, alone in
 * its file) runs outside one, recorded as Prisma's engine records it: started, then finished.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config';
import {
  MIGRATION_LOCK_KEY,
  MIGRATION_LOCK_POLL_MS,
  MIGRATION_LOCK_WAITING,
  type Database,
  type SqlSession,
} from './database';

export const migrationsDir = path.join(projectRoot, 'prisma', 'migrations');

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/**
 * The migrations on disk, in the order Prisma applies them (folder name order). None at all is a
 * runtime shipped without them (prisma/migrations left out, or a volume mounted over it): a
 * MigrationError, never "up to date" on a database without tables.
 */
export function readMigrations(dir: string = migrationsDir): Migration[] {
  const names = fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, 'migration.sql')))
        .map((d) => d.name)
        .sort()
    : [];
  if (names.length === 0) {
    throw new MigrationError(
      `No migrations in ${dir}: this copy of the gateway is incomplete. Ship the runtime whole ` +
        '(scripts/build-runtime.js copies prisma/migrations beside dist/; docs/deployment.md, "Build the runtime").',
    );
  }
  return names.map((name) => {
    const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
    return { name, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
  });
}

// The table exactly as Prisma's schema engine creates it.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Behind a transaction-mode pooler, each of the runner's transactions waits for the lock and runs its
 * migration without a statement timeout, as the session of a direct connection does (src/db/database.ts).
 */
const NO_STATEMENT_TIMEOUT = 'SET LOCAL statement_timeout = 0';

/**
 * Behind a transaction-mode pooler without DATABASE_DIRECT_URL: begins a transaction that holds the
 * migrations' lock. Asked for again and again, each time in a short transaction, never waited for in
 * one statement: a statement blocked on the lock holds a snapshot, which a CREATE INDEX CONCURRENTLY
 * run by the lock's holder (a migrator with DATABASE_DIRECT_URL) waits for, and PostgreSQL ended
 * that index build as a deadlock, leaving an INVALID index and its migration started, not finished.
 */
async function beginLocked(session: SqlSession): Promise<void> {
  for (let told = false; ; told = true) {
    await session.exec('BEGIN');
    await session.exec(NO_STATEMENT_TIMEOUT);
    const [lock] = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      MIGRATION_LOCK_KEY,
    ]);
    if (lock?.locked) return;
    await session.exec('ROLLBACK');
    if (!told) session.waiting?.(MIGRATION_LOCK_WAITING);
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Every row of `_prisma_migrations`: what the runner, the start-up check and the migrate command read. */
const appliedRows = (session: SqlSession): Promise<AppliedRow[]> =>
  session.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');

/**
 * Applies every pending migration; returns the names it applied (not those another process applied
 * while this one waited for the lock). `onApply` hears each one as it starts.
 */
export async function migrate(
  db: Database,
  migrations: Migration[] = readMigrations(),
  onApply?: (migration: Migration, index: number, count: number) => void,
): Promise<string[]> {
  return db.withMigrationSession(async (session) => {
    if (session.lockPerTransaction) {
      await beginLocked(session);
      await session.exec(CREATE_MIGRATIONS_TABLE);
      await session.exec('COMMIT');
    } else {
      await session.exec(CREATE_MIGRATIONS_TABLE);
    }
    const pending = pendingOf(migrations, await appliedRows(session));
    const done: string[] = [];
    for (const [index, migration] of pending.entries()) {
      onApply?.(migration, index + 1, pending.length);
      if (await applyOne(session, migration)) done.push(migration.name);
    }
    return done;
  });
}

/**
 * Checksums a migration's file had in an earlier release of main, before that file was edited (which
 * the rule below forbids): a database that release migrated is accepted as having the migration, and
 * a later migration brings it what the edit changed. 20261128090000's function `store_place_order`
 * as b320d6c to 87f97a4 released it; 20261129090000_place_order_key_recheck makes it today's.
 */
const RELEASED_EARLIER: Readonly<Record<string, readonly string[]>> = {
  '20261128090000_store_writes_without_counting': ['e97ca1c694043658c65e05b92379a021df669e5af4a6366a563e51f8c6db2d5a'],
};

/**
 * The migrations of `migrations` not applied according to `rows` (`_prisma_migrations`); throws
 * MigrationError for a migration that started and did not finish, or that was changed after it was
 * applied. Migrations applied that `migrations` does not know (a newer release's, during a rollback
 * or a rollout) are not an error: expand-only migrations keep the older code working (docs/deployment.md).
 */
function pendingOf(migrations: Migration[], rows: AppliedRow[]): Migration[] {
  const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  for (const row of applied.values()) {
    if (row.finished_at === null) {
      throw new MigrationError(
        `Migration ${row.migration_name} started but did not finish; resolve it before starting the service: ` +
          'undo what it may have done, then mark it rolled back (UPDATE "_prisma_migrations" SET rolled_back_at = now() ' +
          `WHERE migration_name = '${row.migration_name}' AND finished_at IS NULL), and migrate again`,
      );
    }
  }
  const pending: Migration[] = [];
  for (const migration of migrations) {
    const previous = applied.get(migration.name);
    if (previous) {
      if (previous.checksum !== migration.checksum && !RELEASED_EARLIER[migration.name]?.includes(previous.checksum)) {
        throw new MigrationError(
          `Migration ${migration.name} was changed after it was applied (checksum differs). A migration is never ` +
            'edited once applied: restore its file as it was released (git checkout), and write the change as a ' +
            'new migration (docs/deployment.md, "Backward-compatible migrations").',
        );
      }
      continue;
    }
    pending.push(migration);
  }
  return pending;
}

/**
 * The migrations not yet applied to `db`, read without changing anything (no table is created: a
 * role without CREATE can run it): what MIGRATE_ON_START=false checks at start. It takes the
 * migrations' advisory lock like the runner, so a migration running elsewhere is waited for.
 */
export async function pendingMigrations(
  db: Database,
  migrations: Migration[] = readMigrations(),
): Promise<Migration[]> {
  return db.withMigrationSession(async (session) => {
    const [table] = await session.query<{ present: boolean }>(
      `SELECT to_regclass('"_prisma_migrations"') IS NOT NULL AS present`,
    );
    if (!table?.present) return migrations;
    return pendingOf(migrations, await appliedRows(session));
  });
}

/** What PostgreSQL runs only outside a transaction: `CREATE`/`DROP INDEX CONCURRENTLY`, `REINDEX ... CONCURRENTLY`. */
const OUTSIDE_TRANSACTION = /\bCONCURRENTLY\b/i;

/** The migration's SQL without its comments (`--` lines, block comments), trimmed. */
const withoutComments = (sql: string): string =>
  sql
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/--[^\n]*/g, '')
    .trim();

/** Applies `migration`; false when another process applied it meanwhile (per-transaction lock only). */
async function applyOne(session: SqlSession, migration: Migration): Promise<boolean> {
  if (OUTSIDE_TRANSACTION.test(withoutComments(migration.sql))) return applyOutsideTransaction(session, migration);
  await (session.lockPerTransaction ? beginLocked(session) : session.exec('BEGIN'));
  try {
    if (session.lockPerTransaction) {
      // The lock is this transaction's alone: another process may have applied it since we looked.
      const [done] = await session.query(
        'SELECT 1 FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL',
        [migration.name],
      );
      if (done) {
        await session.exec('COMMIT');
        return false;
      }
    }
    await session.exec(migration.sql);
    await session.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), now(), 1)`,
      [crypto.randomUUID(), migration.checksum, migration.name],
    );
    await session.exec('COMMIT');
    return true;
  } catch (error) {
    // A session that was lost (a failover, a restart) rolled back with it: its failure is the one to tell.
    await session.exec('ROLLBACK').catch(() => undefined);
    throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`);
  }
}

/**
 * Applies a migration PostgreSQL refuses inside a transaction. It must be that one statement alone
 * (a failure halfway through several could not be undone), and it needs the migration lock held by
 * the session (a direct connection), not by a transaction. Its row is written before it runs and
 * finished after, as Prisma's engine does: if it fails, or the process dies meanwhile (a
 * `CONCURRENTLY` index may be left INVALID), the next run stops at "started but did not finish"
 * rather than take the half-built index for done.
 */
async function applyOutsideTransaction(session: SqlSession, migration: Migration): Promise<boolean> {
  const statement = withoutComments(migration.sql).replace(/;\s*$/, '');
  if (statement.includes(';')) {
    throw new MigrationError(
      `Migration ${migration.name} runs a statement PostgreSQL refuses inside a transaction (CONCURRENTLY), ` +
        'beside other statements: give that statement a migration of its own, and the rest another.',
    );
  }
  if (session.lockPerTransaction) {
    throw new MigrationError(
      `Migration ${migration.name} runs a statement PostgreSQL refuses inside a transaction (CONCURRENTLY), which ` +
        'cannot be applied through a transaction-mode pooler: set DATABASE_DIRECT_URL to the database itself ' +
        '(docs/postgres-topologies.md).',
    );
  }
  const id = crypto.randomUUID();
  await session.query(
    `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), 0)`,
    [id, migration.checksum, migration.name],
  );
  try {
    await session.exec(migration.sql);
  } catch (error) {
    const message = (error as Error).message;
    await session
      .query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, message])
      .catch(() => undefined);
    throw new MigrationError(
      `Migration ${migration.name} failed outside a transaction: ${message}. It is recorded as started and not ` +
        'finished: drop what it may have left (an INVALID index), then mark it rolled back ' +
        `(UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '${migration.name}' ` +
        'AND finished_at IS NULL), and migrate again.',
    );
  }
  await session.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [
    id,
  ]);
  return true;
}

/**
 * Migrations applied to `db` that `migrations` does not know: a newer release's (a rollback, or an
 * older release's migrate command run after a newer one). Not an error (expand-only migrations keep
 * older code working), but the migrate command says so rather than "up to date".
 */
export async function unknownMigrations(db: Database, migrations: Migration[] = readMigrations()): Promise<string[]> {
  const known = new Set(migrations.map((m) => m.name));
  const rows = await db.withMigrationSession(appliedRows);
  return rows
    .filter((r) => r.rolled_back_at === null && !known.has(r.migration_name))
    .map((r) => r.migration_name)
    .sort();
}
