/**
 * `npm run db:migrate` and `npm run db:seed` on an embedded database no migration was applied to, as
 * an operator runs them (the built scripts, in their own processes).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../../src/db/database';
import { readMigrations } from '../../src/db/migrate';
import { prepareDataDir, runScript } from '../helpers/server-process';

jest.setTimeout(120_000);

describe('database scripts on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-scripts-'));
  const env = { PGLITE_DATA_DIR: dataDir };
  // A created database with no migration applied (a copy of the run's empty template): what creating
  // one prints is the start-up test's subject (test/http/startup.test.ts); applying them is this one's.
  beforeAll(() => prepareDataDir(dataDir, 'empty'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('db:migrate applies every migration once, then reports the database up to date', async () => {
    const names = readMigrations().map((m) => m.name);
    const first = await runScript('src/db/migrate.cli.js', [], env);
    expect(first).toMatchObject({ code: 0, stdout: `applied ${names.length} migration(s): ${names.join(', ')}\n` });
    const second = await runScript('src/db/migrate.cli.js', [], env);
    expect(second).toMatchObject({ code: 0, stdout: `database is up to date (${names.length} migration(s))\n` });
  });

  it('db:migrate in production writes its progress as JSON lines, as its fatal lines', async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-scripts-prod-'));
    try {
      prepareDataDir(fresh, 'empty');
      const result = await runScript('src/db/migrate.cli.js', [], { PGLITE_DATA_DIR: fresh, NODE_ENV: 'production' });
      expect(result.code).toBe(0);
      const lines = result.stderr.split('\n').filter(Boolean);
      const parsed = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      for (const line of parsed) {
        expect(line).toMatchObject({
          level: 30,
          msg: expect.stringMatching(/^(applying migration \d+ of \d+: |creating the embedded database in )/),
        });
      }
      expect(parsed.filter((l) => l.msg.startsWith('applying migration')).length).toBe(readMigrations().length);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  it("db:migrate of an older release names the newer release's migrations it does not know", async () => {
    const db = await createDatabase({ kind: 'pglite', dataDir });
    try {
      await db.prisma
        .$executeRaw`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
        VALUES ('newer', 'x', '29990101000000_from_a_newer_release', now(), now(), 1)`;
    } finally {
      await db.close();
    }
    const names = readMigrations().map((m) => m.name);
    const result = await runScript('src/db/migrate.cli.js', [], env);
    expect(result).toMatchObject({
      code: 0,
      stdout:
        `database is up to date (${names.length} migration(s))\n` +
        'the database also has 1 migration(s) this release does not know, applied by a newer one: ' +
        '29990101000000_from_a_newer_release (not an error: migrations only add, docs/deployment.md)\n',
    });
  });

  it('db:seed loads the demo catalogue through the store rules, once', async () => {
    const seeded = await runScript('prisma/seed.js', [], env);
    expect(seeded).toMatchObject({ code: 0, stdout: 'seeded 5 categories and 17 pets\n' });
    expect((await runScript('prisma/seed.js', [], env)).stdout).toBe(
      'the database already has categories; seeding skipped\n',
    );

    const db = await createDatabase({ kind: 'pglite', dataDir });
    try {
      expect(await db.prisma.category.count()).toBe(5);
      expect(await db.prisma.pet.count()).toBe(17);
      const orders = await db.prisma.order.findMany({ orderBy: { id: 'asc' } });
      expect(orders.map((o) => o.complete)).toEqual([true, false]);
      // The open order holds the last unit of its pet: the demo shows a pending pet.
      const held = await db.prisma.pet.findUnique({ where: { id: orders[1]!.petId! }, include: { inventory: true } });
      expect(held).toMatchObject({ status: 'pending', inventory: { quantity: 0 } });
    } finally {
      await db.close();
    }
  });

  it('db:migrate and db:seed refuse any argument with their usage (exit 2), before opening or creating a database', async () => {
    const fresh = path.join(dataDir, 'never-created');
    for (const [script, args, usage] of [
      ['src/db/migrate.cli.js', ['--dry-run'], 'usage: npm run db:migrate'],
      ['src/db/migrate.cli.js', ['status'], 'usage: npm run db:migrate'],
      ['prisma/seed.js', ['--force'], 'usage: npm run db:seed'],
    ] as const) {
      const result = await runScript(script, [...args], { PGLITE_DATA_DIR: fresh });
      expect(result).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(usage) });
      expect(result.stderr).not.toMatch(/TypeError|\n\s+at /);
    }
    expect(fs.existsSync(fresh)).toBe(false);
  });
});
