/**
 * Runs once per `npm test`: builds one migrated PGlite database (a data directory) and dumps it, so
 * each suite, and each server process a suite starts, begins from a copy in under a second instead of
 * initialising PGlite (~4 s) and migrating.
 * With TEST_DATABASE_URL set, suites use PostgreSQL instead and this only checks the server answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from '../../src/db/database';
import { migrate } from '../../src/db/migrate';
import { NEEDS_PGBOUNCER, pgbouncerAvailable, startPgBouncer, type PgBouncer } from './pg-servers';

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    await client.end();
    if (process.env.TEST_PGBOUNCER === '1') {
      if (!pgbouncerAvailable)
        throw new Error(`TEST_PGBOUNCER=1 needs ${NEEDS_PGBOUNCER.needs}: ${NEEDS_PGBOUNCER.run}`);
      // One PgBouncer for the run, in front of every suite's database (its `*` entry); test-database.ts
      // points the gateways at it. Stopped by global-teardown.ts (same process).
      const bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL, { poolSize: 5 });
      process.env.PETSTORE_TEST_PGBOUNCER_PORT = String(bouncer.port);
      (globalThis as { petstorePgBouncer?: PgBouncer }).petstorePgBouncer = bouncer;
    }
    return;
  }
  // One PGlite initialisation for both templates: a migrated data directory (copied for server
  // processes, test/helpers/server-process.ts) and its dump (loaded by in-process suites).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-test-'));
  const dataDir = path.join(dir, 'template-data');
  const db = await createDatabase({ kind: 'pglite', dataDir });
  await migrate(db);
  const dump = await db.pglite!.dumpDataDir('none');
  const file = path.join(dir, 'template.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await db.close();
  // The lock beside the data directory is the template's own; copies take their own.
  fs.rmSync(`${dataDir}.lock`, { recursive: true, force: true });
  process.env.PETSTORE_TEST_TEMPLATE = file;
  process.env.PETSTORE_TEST_DATA_TEMPLATE = dataDir;
}
