/**
 * Runs once per `npm test`: builds the embedded databases every suite starts from, so that a suite,
 * and each server process a suite starts, begins from a copy of a data directory (a fraction of a
 * second) instead of initialising PGlite (~5 s of CPU) and migrating:
 * - PETSTORE_TEST_DATA_TEMPLATE: migrated, no rows (what `prepareDataDir` and `createTestDatabase` copy);
 * - PETSTORE_TEST_DATA_TEMPLATE_ADMIN: the same with one admin key, PETSTORE_TEST_ADMIN_KEY (the fault
 *   fixtures' key: no API-key CLI process to make one);
 * - PETSTORE_TEST_DATA_TEMPLATE_EMPTY: initialised, no migration applied (for `npm run db:migrate`).
 * With TEST_DATABASE_URL set, suites use PostgreSQL instead and this only checks the server answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from '../../src/db/database';
import { migrate } from '../../src/db/migrate';
import { ApiKeyService } from '../../src/modules/auth/api-key.service';
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
  // One PGlite initialisation (initdb) for all three; a data directory is copied only while closed.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-test-'));
  const empty = path.join(dir, 'template-empty');
  const migrated = path.join(dir, 'template-data');
  const admin = path.join(dir, 'template-admin');
  const copy = (from: string, to: string) => fs.cpSync(from, to, { recursive: true });

  await (await createDatabase({ kind: 'pglite', dataDir: admin })).close();
  copy(admin, empty);
  let db = await createDatabase({ kind: 'pglite', dataDir: admin });
  await migrate(db);
  await db.close();
  copy(admin, migrated);
  db = await createDatabase({ kind: 'pglite', dataDir: admin });
  const { key } = await new ApiKeyService(db.prisma).create({ name: 'test admin', scopes: ['admin'] });
  await db.close();
  // The lock beside a data directory is the template's own; copies take their own.
  for (const d of [empty, migrated, admin]) fs.rmSync(`${d}.lock`, { recursive: true, force: true });
  process.env.PETSTORE_TEST_TEMPLATES = dir;
  process.env.PETSTORE_TEST_DATA_TEMPLATE = migrated;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_ADMIN = admin;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_EMPTY = empty;
  process.env.PETSTORE_TEST_ADMIN_KEY = key;
}
