/**
 * Runs once per `npm test`: builds the embedded databases every suite starts from, so that a suite,
 * and each server process a suite starts, begins from a copy of a data directory (a fraction of a
 * second) instead of initialising PGlite (~5 s of CPU) and migrating:
 * - PETSTORE_TEST_DATA_TEMPLATE: migrated, no rows (what `prepareDataDir` and `createTestDatabase` copy);
 * - PETSTORE_TEST_DATA_TEMPLATE_ADMIN: the same with one admin key, PETSTORE_TEST_ADMIN_KEY (the fault
 *   fixtures' key: no API-key CLI process to make one);
 * - PETSTORE_TEST_DATA_TEMPLATE_EMPTY: initialised, no migration applied (for `npm run db:migrate`).
 * With TEST_DATABASE_URL set, suites use PostgreSQL instead and this only checks the server answers.
 *
 * Every temporary file of the run (these templates, each suite's copy, the data directories of the
 * processes tests start, PostgreSQL clusters of test/db/) goes under one directory of the run, which
 * becomes TMPDIR for Jest's workers (they start after this) and global-teardown.ts removes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from '../../src/db/database';
import { migrate } from '../../src/db/migrate';
import { ApiKeyService } from '../../src/modules/auth/api-key.service';
import { NEEDS_PGBOUNCER, pgbouncerAvailable, startPgBouncer, type PgBouncer } from './pg-servers';

/** Free space /dev/shm must have to hold the run's temporary files (three templates, a copy per suite). */
const SHM_MIN_FREE = 2 * 1024 ** 3;

/**
 * Where the run's temporary files go: TMPDIR when the user set one; otherwise /dev/shm when it is a
 * memory file system with room, else os.tmpdir(). A data directory is ~1,000 files: on a disk, copying
 * one, PGlite's writes to it and removing it cost ~0.3 s of (mostly kernel) CPU per suite and server
 * process, and the kernel's writeback of the run's ~4 GB of short-lived files competes for the same
 * cores; in memory they cost a fifth of that and nothing is written back.
 */
function runTempBase(): string {
  if (process.env.TMPDIR) return os.tmpdir();
  try {
    const shm = fs.statfsSync('/dev/shm');
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    if (shm.bavail * shm.bsize >= SHM_MIN_FREE) return '/dev/shm';
  } catch {
    // no /dev/shm (not Linux) or not writable
  }
  return os.tmpdir();
}

export default async function globalSetup(): Promise<void> {
  const runDir = fs.mkdtempSync(path.join(runTempBase(), 'petstore-test-'));
  // Others may pass through (not list): test/db/ runs PostgreSQL as its own user in a directory here.
  fs.chmodSync(runDir, 0o711);
  process.env.PETSTORE_TEST_RUN_DIR = runDir;
  process.env.TMPDIR = runDir;
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
  const dir = runDir;
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
  process.env.PETSTORE_TEST_DATA_TEMPLATE = migrated;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_ADMIN = admin;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_EMPTY = empty;
  process.env.PETSTORE_TEST_ADMIN_KEY = key;
}
