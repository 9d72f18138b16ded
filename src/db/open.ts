import type { Config } from '../config';
import { checkDataDirWritable, explainPgliteFailure, pgliteIsNew, StartupError, waitForPostgres } from './startup';
import { createDatabase, startupParameters, type CreateDatabaseOptions, type Database } from './database';
import { migrate, pendingMigrations, readMigrations } from './migrate';

export interface OpenDatabaseOptions extends CreateDatabaseOptions {
  /** Hears progress lines for a person (creating the database, applying migration N of M). */
  progress?: (msg: string) => void;
  /**
   * `apply`: pending migrations are applied (the migrate command; the default with MIGRATE_ON_START
   * true); `check`: nothing is changed, and pending migrations stop the open with one line naming the
   * command (the default with MIGRATE_ON_START=false). Omitted: as config.migrateOnStart says.
   */
  migrations?: 'apply' | 'check';
  /** Hears the name of each migration applied. */
  applied?: (name: string) => void;
}

/** The migrate command, as the runtime an operator ships runs it (docs/deployment.md). */
export const MIGRATE_COMMAND = 'npm run db:migrate';

/**
 * Opens the configured database and applies pending migrations: what the service does at start and
 * what `npm run db:migrate`, `db:seed` and the API-key CLI do before their work. A PostgreSQL server
 * that does not answer yet is waited for (up to DB_STARTUP_RETRY_MS); failures a person can fix
 * throw StartupError (src/db/startup.ts).
 */
export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  const {
    progress = () => undefined,
    migrations = config.migrateOnStart === false ? 'check' : 'apply',
    applied,
    ...createOptions
  } = options;
  const settings = config.database;
  // Before anything is opened or created: a runtime without its migrations is said at once.
  const files = readMigrations();
  if (settings.kind === 'postgres') {
    const retryMs = config.databaseStartupRetryMs ?? 0;
    await waitForPostgres(settings.url, retryMs, progress, { startupParameters: startupParameters(settings) });
    if (settings.directUrl) {
      // Sent as the migration lock's session sends them (a session of the primary itself, never pooled).
      await waitForPostgres(settings.directUrl, retryMs, progress, {
        variable: 'DATABASE_DIRECT_URL',
        startupParameters: startupParameters({ ...settings, pgbouncer: false }),
      });
    }
  } else if (settings.dataDir) {
    checkDataDirWritable(settings.dataDir);
    if (pgliteIsNew(settings.dataDir)) {
      progress(`creating the embedded database in ${settings.dataDir} (first start, a few seconds)`);
    }
  }
  const db = await createDatabase(settings, createOptions).catch((error: unknown) => {
    throw settings.kind === 'pglite' ? explainPgliteFailure(error, settings.dataDir) : error;
  });
  try {
    if (migrations === 'apply') {
      const names = await migrate(db, files, (migration, index, count) =>
        progress(`applying migration ${index} of ${count}: ${migration.name}`),
      ).catch((error: unknown) => {
        // At start (no `migrations` option: MIGRATE_ON_START decided), or in the migrate command.
        throw settings.kind === 'postgres'
          ? explainMigrationRefused(error, options.migrations === undefined ? 'start' : 'command')
          : error;
      });
      for (const name of names) applied?.(name);
    } else {
      const pending = await pendingMigrations(db, files);
      if (pending.length) {
        throw new StartupError(
          `The database schema is behind: ${pending.length} migration(s) not applied (${pending[0]!.name}` +
            `${pending.length > 1 ? ', ...' : ''}) and MIGRATE_ON_START=false never changes it. ` +
            `Run the migrate command first (${MIGRATE_COMMAND}, or node dist/src/db/migrate.cli.js), then start the gateway.`,
          { setting: 'MIGRATE_ON_START' },
        );
      }
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * A role that may not change the schema (42501, insufficient privilege: the least-privilege role of
 * docs/deployment.md) asked to migrate. At start, MIGRATE_ON_START=true (the default) is the setting
 * to change; in the migrate command, the role of DATABASE_URL. (The connection itself succeeded: the
 * driver's "refused the connection... fix the user, password or grants" pointed the wrong way.)
 */
function explainMigrationRefused(error: unknown, when: 'start' | 'command'): unknown {
  const code = (error as { code?: string } | null)?.code;
  const message = (error as Error | null)?.message ?? '';
  if (code !== '42501' && !/permission denied/.test(message)) return error;
  if (when === 'command') {
    return new StartupError(
      `The role of DATABASE_URL may not change the schema (${message}): the migrate command needs a role that ` +
        "may, such as the schema's owner. Run it with DATABASE_URL naming that role; the gateway itself can keep " +
        'its least-privilege role (docs/deployment.md, "Migrations as their own step").',
      { setting: 'DATABASE_URL' },
    );
  }
  return new StartupError(
    `The role of DATABASE_URL may not change the schema (${message}), and migrations run at start ` +
      `(MIGRATE_ON_START=true, the default). Set MIGRATE_ON_START=false for this role, and run the migrate ` +
      `command (${MIGRATE_COMMAND}) as the schema's owner before starting (docs/deployment.md, "Migrations as their own step").`,
    { setting: 'MIGRATE_ON_START' },
  );
}
