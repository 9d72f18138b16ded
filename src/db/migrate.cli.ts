/** `npm run db:migrate`: applies pending migrations to the configured database and exits. */
import { loadConfig, readEnvFile } from '../config';
import { createDatabase } from './database';
import { migrate, readMigrations } from './migrate';
import { explainStartupError } from './startup';

async function main(): Promise<void> {
  readEnvFile();
  const config = loadConfig();
  const db = await createDatabase(config.database);
  try {
    const applied = await migrate(db);
    const total = readMigrations().length;
    console.log(
      applied.length
        ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
        : `database is up to date (${total} migration(s))`,
    );
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(explainStartupError(error) ?? (error instanceof Error ? error.message : error));
  process.exit(1);
});
