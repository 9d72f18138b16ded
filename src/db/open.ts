import type { Config } from '../config';
import { createDatabase, type CreateDatabaseOptions, type Database } from './database';
import { migrate } from './migrate';

/**
 * Opens the configured database and applies pending migrations: what the service does at start and
 * what `npm run db:migrate`, `db:seed` and the API-key CLI do before their work.
 */
export async function openDatabase(config: Config, options?: CreateDatabaseOptions): Promise<Database> {
  const db = await createDatabase(config.database, options);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
