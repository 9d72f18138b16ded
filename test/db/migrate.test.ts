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

  describe('a statement PostgreSQL refuses inside a transaction (CREATE INDEX CONCURRENTLY)', () => {
    const index = (name: string, sql: string) => ({ name, sql, checksum: crypto.randomUUID().replace(/-/g, '') });
    const recorded = (name: string) =>
      t.db.prisma.$queryRawUnsafe<{ finished_at: Date | null; applied_steps_count: number }[]>(
        'SELECT finished_at, applied_steps_count FROM "_prisma_migrations" WHERE migration_name = $1 AND rolled_back_at IS NULL',
        name,
      );
    const valid = async (name: string) =>
      (
        await t.db.prisma.$queryRawUnsafe<{ valid: boolean }[]>(
          'SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1',
          name,
        )
      ).map((r) => r.valid);

    it('runs alone in its migration, outside a transaction, recorded finished', async () => {
      const m = index(
        '29991231000001_pets_name_lower',
        '-- Built without locking writes.\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "pets_name_lower" ON "pets" (lower("name"));\n',
      );
      expect(await migrate(t.db, [...readMigrations(), m])).toEqual([m.name]);
      expect(await valid('pets_name_lower')).toEqual([true]);
      expect(await recorded(m.name)).toEqual([{ finished_at: expect.any(Date), applied_steps_count: 1 }]);
      expect(await migrate(t.db, [...readMigrations(), m])).toEqual([]);
    });

    it('is refused beside other statements, before anything runs', async () => {
      const m = index(
        '29991231000002_mixed',
        'CREATE TABLE mixed_half (id int);\nCREATE INDEX CONCURRENTLY "mixed_idx" ON "pets" ("name");',
      );
      await expect(migrate(t.db, [...readMigrations(), m])).rejects.toThrow(/migration of its own/);
      expect(await recorded(m.name)).toEqual([]);
      expect(await valid('mixed_idx')).toEqual([]);
    });

    it('failing, stays recorded as started: the next run stops until it is resolved', async () => {
      await t.db.prisma.$executeRawUnsafe('CREATE TABLE twice (n int)');
      await t.db.prisma.$executeRawUnsafe('INSERT INTO twice VALUES (1), (1)');
      const m = index('29991231000003_unique_twice', 'CREATE UNIQUE INDEX CONCURRENTLY "twice_n" ON "twice" (n);');
      await expect(migrate(t.db, [...readMigrations(), m])).rejects.toThrow(
        /29991231000003_unique_twice failed outside a transaction: .*recorded as started.*rolled_back_at = now\(\)/,
      );
      expect(await recorded(m.name)).toEqual([{ finished_at: null, applied_steps_count: 0 }]);
      await expect(migrate(t.db, [...readMigrations(), m])).rejects.toThrow(
        /started but did not finish.*rolled_back_at/,
      );
      // Resolved as the message says: what it left dropped, the row marked rolled back; then it runs again.
      await t.db.prisma.$executeRawUnsafe('DROP INDEX IF EXISTS "twice_n"');
      await t.db.prisma.$executeRawUnsafe('DELETE FROM twice WHERE ctid IN (SELECT ctid FROM twice LIMIT 1)');
      await t.db.prisma.$executeRawUnsafe(
        `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '${m.name}' AND finished_at IS NULL`,
      );
      expect(await migrate(t.db, [...readMigrations(), m])).toEqual([m.name]);
      expect(await valid('twice_n')).toEqual([true]);
    });
  });
});
