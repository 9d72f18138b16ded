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
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from '../../src/db/database';
import { migrate } from '../../src/db/migrate';
import { ApiKeyService } from '../../src/modules/auth/api-key.service';
import globalTeardown from './global-teardown';
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

const RUN_DIR_PREFIX = 'petstore-test-';

/**
 * Removes the run directories of runs that were interrupted (Ctrl-C ends Jest without its global
 * teardown): each holds the process id of its Jest, and is left alone while that process lives.
 */
function removeAbandonedRunDirs(base: string): void {
  for (const name of fs.readdirSync(base).filter((n) => n.startsWith(RUN_DIR_PREFIX))) {
    const dir = path.join(base, name);
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(dir, 'run.pid'), 'utf8'));
      process.kill(pid, 0);
      continue; // that run is still going
    } catch (error) {
      // No run.pid (not ours, or not yet written), or a process we may not signal: leave it.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export default async function globalSetup(): Promise<void> {
  const base = runTempBase();
  removeAbandonedRunDirs(base);
  const runDir = fs.mkdtempSync(path.join(base, RUN_DIR_PREFIX));
  fs.writeFileSync(path.join(runDir, 'run.pid'), String(process.pid));
  // Others may pass through (not list): test/db/ runs PostgreSQL as its own user in a directory here.
  fs.chmodSync(runDir, 0o711);
  process.env.PETSTORE_TEST_RUN_DIR = runDir;
  process.env.TMPDIR = runDir;
  try {
    await prepare(runDir);
  } catch (error) {
    // Jest runs no teardown after a failed setup: the run's PgBouncer and directory would outlive it.
    await globalTeardown();
    throw error;
  }
}

async function prepare(runDir: string): Promise<void> {
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
  const templates = {
    empty: path.join(runDir, 'template-empty'),
    migrated: path.join(runDir, 'template-data'),
    admin: path.join(runDir, 'template-admin'),
  };
  const hash = templatesHash();
  const key = copyCachedTemplates(templates, hash) ?? (await buildTemplates(templates, hash));
  process.env.PETSTORE_TEST_DATA_TEMPLATE = templates.migrated;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_ADMIN = templates.admin;
  process.env.PETSTORE_TEST_DATA_TEMPLATE_EMPTY = templates.empty;
  process.env.PETSTORE_TEST_ADMIN_KEY = key;
}

type Templates = Record<'empty' | 'migrated' | 'admin', string>;

/**
 * The templates' server settings (postgresql.auto.conf, so every copy, in a suite or in a process a
 * test starts, has them). PostgreSQL's default 128 MB of shared buffers, which PGlite keeps, are set up
 * at every start: with a tenth of that, opening a data directory takes ~0.25 s of CPU instead of ~0.8 s
 * and ~40,000 fewer page faults. A test database holds a few hundred rows; nothing a test observes
 * depends on the size of the buffer pool or on connection slots (PGlite has one session).
 */
const TEST_SERVER_SETTINGS: [string, string][] = [
  ['shared_buffers', '8MB'],
  ['max_connections', '5'],
];
const copy = (from: string, to: string) => fs.cpSync(from, to, { recursive: true });

/** Builds the three templates (one PGlite initialisation for all three); returns the admin key. */
async function buildTemplates(t: Templates, hash: string): Promise<string> {
  // A data directory is copied only while closed.
  let db = await createDatabase({ kind: 'pglite', dataDir: t.admin });
  // One statement at a time: ALTER SYSTEM cannot run in the transaction a multi-statement text is.
  for (const [name, value] of TEST_SERVER_SETTINGS) await db.pglite!.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
  await db.close();
  copy(t.admin, t.empty);
  db = await createDatabase({ kind: 'pglite', dataDir: t.admin });
  await migrate(db);
  await db.close();
  copy(t.admin, t.migrated);
  db = await createDatabase({ kind: 'pglite', dataDir: t.admin });
  const { key } = await new ApiKeyService(db.prisma).create({ name: 'test admin', scopes: ['admin'] });
  await db.close();
  // The lock beside a data directory is the template's own; copies take their own.
  for (const d of Object.values(t)) fs.rmSync(`${d}.lock`, { recursive: true, force: true });
  saveTemplates(t, key, hash);
  return key;
}

/*
 * The templates are kept between runs in node_modules/.cache/petstore-test-templates/<hash>, so that a
 * run (`npm test -- test/x.test.ts` as much as the whole suite) starts in a fraction of a second instead
 * of ~6 s of initdb and migrations. The hash covers everything the templates are made of: the
 * installed packages (PGlite's version decides the data format), prisma/ (the migrations), the code
 * that creates, migrates and writes a key into a database, and this file. Anything else changed
 * builds them again; `rm -rf node_modules/.cache/petstore-test-templates` forgets them.
 */
const root = path.resolve(__dirname, '..', '..');
const cacheRoot = path.join(root, 'node_modules', '.cache', 'petstore-test-templates');
const TEMPLATE_INPUTS = [
  'package-lock.json',
  'prisma',
  'src/db',
  'src/modules/auth',
  'src/common',
  'src/config.ts',
  'test/helpers/global-setup.ts',
];

function filesUnder(p: string): string[] {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [p];
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(path.join(p, name)));
}

/** What the templates are made of, hashed: the name of their build in the cache. */
function templatesHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of TEMPLATE_INPUTS.flatMap(filesUnder))
    hash.update(`${file}\0`).update(fs.readFileSync(path.join(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Copies the kept build `hash` into place and returns its admin key; null when there is none. */
function copyCachedTemplates(t: Templates, hash: string): string | null {
  const cached = path.join(cacheRoot, hash);
  let key: string;
  try {
    key = (JSON.parse(fs.readFileSync(path.join(cached, 'admin-key.json'), 'utf8')) as { key: string }).key;
  } catch {
    return null;
  }
  for (const [name, dir] of Object.entries(t)) copy(path.join(cached, name), dir);
  return key;
}

/** Keeps this build (and no older one); whole or not at all, should two runs save at once. */
function saveTemplates(t: Templates, key: string, hash: string): void {
  let staging: string | null = null;
  try {
    fs.mkdirSync(cacheRoot, { recursive: true });
    staging = fs.mkdtempSync(path.join(cacheRoot, '.staging-'));
    for (const [name, dir] of Object.entries(t)) copy(dir, path.join(staging, name));
    // Written last: a build without it is never read.
    fs.writeFileSync(path.join(staging, 'admin-key.json'), JSON.stringify({ key }));
    for (const old of fs.readdirSync(cacheRoot).filter((name) => !name.startsWith('.staging-')))
      fs.rmSync(path.join(cacheRoot, old), { recursive: true, force: true });
    fs.renameSync(staging, path.join(cacheRoot, hash));
  } catch {
    // A read-only or full node_modules, or another run saved first: the next run builds or reads theirs.
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
  }
}
