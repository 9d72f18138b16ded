import type { Config } from '../config';
import { checkDataDirWritable, explainPgliteFailure, pgliteIsNew, waitForPostgres } from './startup';
import { createDatabase, startupParameters, type CreateDatabaseOptions, type Database } from './database';
import { migrate } from './migrate';

export interface OpenDatabaseOptions extends CreateDatabaseOptions {
  /** Hears progress lines for a person (creating the database, applying migration N of M). */
  progress?: (msg: string) => void;
}

/**
 * Opens the configured database and applies pending migrations: what the service does at start and
 * what `npm run db:migrate`, `db:seed` and the API-key CLI do before their work. A PostgreSQL server
 * that does not answer yet is waited for (up to DB_STARTUP_RETRY_MS); failures a person can fix
 * throw StartupError (src/db/startup.ts).
 */
export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  const { progress = () => undefined, ...createOptions } = options;
  const settings = config.database;
  if (settings.kind === 'postgres') {
    const retryMs = config.databaseStartupRetryMs ?? 0;
    await waitForPostgres(settings.url, retryMs, progress, { startupParameters: startupParameters(settings) });
    if (settings.directUrl) {
      await waitForPostgres(settings.directUrl, retryMs, progress, { variable: 'DATABASE_DIRECT_URL' });
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
    await migrate(db, undefined, (migration, index, count) =>
      progress(`applying migration ${index} of ${count}: ${migration.name}`),
    );
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
