/** `npm run db:migrate`: applies pending migrations to the configured database and exits. */
import { loadConfig } from '../config';
import { createDatabase } from './database';
import { migrate, readMigrations } from './migrate';

async function main(): Promise<void> {
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
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
