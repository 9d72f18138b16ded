import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { migrate, migrationsDir, readMigrations } from '../../src/db/migrate';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

describe('migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.destroy());

  it('records every migration as Prisma does: name, SHA-256 of the file, finished', async () => {
    const rows = await t.db.prisma.$queryRaw<
      { migration_name: string; checksum: string; finished_at: Date | null; applied_steps_count: number }[]
    >`SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`;
    const folders = fs
      .readdirSync(migrationsDir)
      .filter((f) => fs.existsSync(path.join(migrationsDir, f, 'migration.sql')))
      .sort();
    expect(rows.map((r) => r.migration_name)).toEqual(folders);
    for (const row of rows) {
      const sql = fs.readFileSync(path.join(migrationsDir, row.migration_name, 'migration.sql'));
      expect(row.checksum).toBe(crypto.createHash('sha256').update(sql).digest('hex'));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it('applies nothing twice', async () => {
    expect(await migrate(t.db)).toEqual([]);
  });

  it('refuses a migration that changed after it was applied', async () => {
    const changed = readMigrations().map((m, i) => (i === 0 ? { ...m, checksum: 'f'.repeat(64) } : m));
    // With what to do: the file as released back, the change as a new migration.
    await expect(migrate(t.db, changed)).rejects.toThrow(
      /was changed after it was applied \(checksum differs\)\. .*restore its file as it was released.*new migration/,
    );
  });

  it('rolls back a failing migration and records nothing of it', async () => {
    const broken = [
      ...readMigrations(),
      {
        name: '29991231000000_broken',
        sql: 'CREATE TABLE half_done (id int); SELECT no_such_function();',
        checksum: 'x',
      },
    ];
    await expect(migrate(t.db, broken)).rejects.toThrow(/29991231000000_broken failed/);
    const tables = await t.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'half_done'`;
    expect(tables[0]!.n).toBe(0);
    const recorded = await t.db.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE migration_name = '29991231000000_broken'`;
    expect(recorded[0]!.n).toBe(0);
  });
});
