/**
 * `npm run db:seed`: the demo catalogue (src/db/demo-seed.ts) in the configured database. Skipped on a
 * database that already has categories. On the embedded database beside a running server (which holds
 * it), the server seeds it through its local admin socket, so `npm start` then `npm run db:seed` works
 * in either order; with PostgreSQL the script opens the database itself.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { ConfigError, loadConfig, readEnvFile } from '../src/config';
import { DatabaseInUseError } from '../src/db/database';
import { seedDemoData } from '../src/modules/demo-seed';
import { openDatabase } from '../src/db/open';
import { AdminSocketError, adminSocketPath, sendSeedToAdminSocket } from '../src/modules/auth/api-key.socket';
import { explainStartupError } from '../src/db/startup';
import { takesNoArguments, UsageError } from '../src/common/cli-args';

const USAGE = `usage: npm run db:seed
  loads the demo catalogue into the database (skipped when it has categories); takes no arguments`;

async function main(): Promise<void> {
  takesNoArguments(process.argv.slice(2), USAGE);
  readEnvFile();
  const config = loadConfig();
  let db;
  try {
    db = await openDatabase(config, { progress: (msg) => console.log(msg) });
  } catch (error) {
    const socket =
      config.database.kind === 'pglite' && config.database.dataDir && adminSocketPath(config.database.dataDir);
    if (error instanceof DatabaseInUseError && socket && fs.existsSync(socket)) {
      console.log('a server is running on this database: seeding through it');
      for (const line of await sendSeedToAdminSocket(socket)) console.log(line);
      return;
    }
    throw error;
  }
  try {
    console.log(await seedDemoData(db));
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  const known = error instanceof ConfigError || error instanceof AdminSocketError;
  console.error(
    known ? (error as Error).message : (explainStartupError(error) ?? (error instanceof Error ? error.message : error)),
  );
  process.exit(1);
});
