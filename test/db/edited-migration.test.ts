/**
 * Upgrading a database migrated by a release whose migration file was edited afterwards: main's
 * commits b320d6c to 87f97a4 released 20261128090000_store_writes_without_counting, and 7d2235b then
 * edited its file (store_place_order asks for the key again once it holds the pet's lock). Such a
 * database was refused by every later release ("was changed after it was applied", with a fix only
 * the project could make), so `npm run db:migrate` and the start stopped there for good. The released
 * checksum is accepted, and a later migration brings the edit (src/db/migrate.ts RELEASED_EARLIER).
 * The fixture is the released file itself (test/db/released/), checked by its checksum.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../../src/db/database';
import { migrate, readMigrations } from '../../src/db/migrate';
import { prepareDataDir, runScript } from '../helpers/server-process';

jest.setTimeout(120_000);

const EDITED = '20261128090000_store_writes_without_counting';
const RELEASED_SQL = fs.readFileSync(path.join(__dirname, 'released', `${EDITED}.b320d6c.sql`), 'utf8');

describe('a database migrated by a release whose migration was edited since', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-edited-migration-'));
  const env = { PGLITE_DATA_DIR: dataDir };
  afterAll(() => {
    for (const p of [dataDir, `${dataDir}.lock`, `${dataDir}.admin.sock`])
      fs.rmSync(p, { recursive: true, force: true });
  });

  beforeAll(async () => {
    // What that release applied: every migration up to the edited one, that one as it was released.
    const released = readMigrations()
      .filter((m) => m.name <= EDITED)
      .map((m) =>
        m.name === EDITED
          ? { ...m, sql: RELEASED_SQL, checksum: crypto.createHash('sha256').update(RELEASED_SQL).digest('hex') }
          : m,
      );
    prepareDataDir(dataDir, 'empty');
    const db = await createDatabase({ kind: 'pglite', dataDir });
    try {
      await migrate(db, released);
    } finally {
      await db.close();
    }
  });

  it('is migrated by db:migrate, and gets the edit by a migration of its own', async () => {
    expect(crypto.createHash('sha256').update(RELEASED_SQL).digest('hex')).toBe(
      'e97ca1c694043658c65e05b92379a021df669e5af4a6366a563e51f8c6db2d5a',
    );
    const later = readMigrations()
      .filter((m) => m.name > EDITED)
      .map((m) => m.name);
    const result = await runScript('src/db/migrate.cli.js', [], env);
    expect(result).toMatchObject({ code: 0, stdout: `applied ${later.length} migration(s): ${later.join(', ')}\n` });
    expect((await runScript('src/db/migrate.cli.js', [], env)).stdout).toMatch(/^database is up to date/);

    const db = await createDatabase({ kind: 'pglite', dataDir });
    try {
      const [fn] = await db.prisma.$queryRaw<{ prosrc: string }[]>`
        SELECT prosrc FROM pg_proc WHERE proname = 'store_place_order' AND pronargs = 7`;
      // The edit: the key asked for again once the pet is locked.
      expect(fn!.prosrc).toContain('IF v_locked AND p_key IS NOT NULL THEN');
    } finally {
      await db.close();
    }
  });
});
