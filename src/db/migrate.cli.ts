/**
 * The migrate command (`npm run db:migrate`; in the runtime an operator ships, the same script runs
 * `node dist/src/db/migrate.cli.js` with no build step): applies pending migrations to the configured
 * database and exits. It opens the database as the server does (src/db/open.ts): a PostgreSQL
 * server that does not answer yet is waited for (DB_STARTUP_RETRY_MS), and a failure a person can fix
 * (no such database, login refused, a pooler refusing a parameter) is the server's one line naming
 * the setting, JSON in production (src/fatal-log.ts).
 */
import { loadConfig, readEnvFile, type Config } from '../config';
import { openDatabase } from './open';
import { readMigrations, unknownMigrations } from './migrate';
import { reportStartupFailure } from './startup';
import { logWarningsAsLines, writeProgress } from '../fatal-log';
import { takesNoArguments, UsageError } from '../common/cli-args';

const USAGE = `usage: npm run db:migrate
  applies the pending migrations to the database of DATABASE_URL (or the embedded one); takes no arguments`;

let config: Config | undefined;

async function main(): Promise<void> {
  takesNoArguments(process.argv.slice(2), USAGE);
  readEnvFile();
  logWarningsAsLines();
  config = loadConfig();
  const applied: string[] = [];
  const db = await openDatabase(withoutReplicas(config), {
    migrations: 'apply',
    // JSON in production, like its fatal lines (src/fatal-log.ts).
    progress: (msg) => writeProgress(msg),
    // Another migrator holding the lock: waited for, said once.
    info: (msg) => writeProgress(msg),
    applied: (name) => applied.push(name),
  });
  let unknown: string[];
  try {
    unknown = await unknownMigrations(db);
  } finally {
    await db.close();
  }
  const total = readMigrations().length;
  console.log(
    applied.length
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : `database is up to date (${total} migration(s))`,
  );
  if (unknown.length)
    console.log(
      `the database also has ${unknown.length} migration(s) this release does not know, applied by a newer one: ` +
        `${unknown.join(', ')} (not an error: migrations only add, docs/deployment.md)`,
    );
}

/**
 * Migrations go to the primary alone: DATABASE_REPLICA_URLS (the gateway's environment, exported for
 * the command too) is neither read nor checked, so that a replica away adds no line to its log.
 */
function withoutReplicas(settings: Config): Config {
  if (settings.database.kind !== 'postgres') return settings;
  const { replicaUrls: _replicas, ...primary } = settings.database;
  return { ...settings, database: primary };
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  reportStartupFailure(error, config, { what: 'migrate' });
  process.exit(1);
});
