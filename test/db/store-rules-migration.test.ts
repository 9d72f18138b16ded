/**
 * The store-rules migration brings pets saved before the rules into the status lifecycle. Runs on a
 * database migrated only up to the migration before it (a copy of the run's unmigrated PGlite
 * template, or a new PostgreSQL database with TEST_DATABASE_URL), seeded with rows the old code could
 * write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, type Database } from '../../src/db/database';
import { migrate, readMigrations } from '../../src/db/migrate';
import { prepareDataDir } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

const STORE_RULES = '20261122090000_store_rules';

describe('the store-rules migration', () => {
  let db: Database;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (usingPostgres()) {
      const pg = await createPostgresDatabase();
      drop = pg.drop;
      db = await createDatabase({ kind: 'postgres', url: pg.url, poolSize: 2 });
    } else {
      // Created, no migration applied: initdb is the start-up test's cost, not this one's.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-store-rules-'));
      prepareDataDir(dataDir, 'empty');
      drop = async () => fs.rmSync(dataDir, { recursive: true, force: true });
      db = await createDatabase({ kind: 'pglite', dataDir });
    }
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('settles the status of existing pets and then enforces the stock checks', async () => {
    const all = readMigrations();
    const before = all.slice(
      0,
      all.findIndex((m) => m.name === STORE_RULES),
    );
    await migrate(db, before);
    const legacy = [
      // name, status, stock, open orders
      ['sold-in-stock', 'sold', 3, 0, 'available'],
      ['available-no-stock-open-order', 'available', 0, 1, 'pending'],
      ['pending-nothing-left', 'pending', 0, 0, 'sold'],
      ['sold-no-stock', 'sold', 0, 0, 'sold'],
      ['available-no-stock', 'available', 0, 0, 'available'],
      ['pending-in-stock', 'pending', 2, 1, 'available'],
    ] as const;
    await db.prisma.$executeRawUnsafe(`INSERT INTO categories (id, name, updated_at) VALUES (1, 'Legacy', now())`);
    for (const [i, [name, status, stock, open]] of legacy.entries()) {
      await db.prisma.$executeRawUnsafe(
        `INSERT INTO pets (id, name, category_id, status, updated_at) VALUES (${i + 1}, '${name}', 1, '${status}', now())`,
      );
      await db.prisma.$executeRawUnsafe(
        `INSERT INTO inventory_items (pet_id, quantity, updated_at) VALUES (${i + 1}, ${stock}, now())`,
      );
      for (let n = 0; n < open; n++) {
        await db.prisma.$executeRawUnsafe(
          `INSERT INTO orders (pet_id, quantity, updated_at) VALUES (${i + 1}, 1, now())`,
        );
      }
    }

    expect(await migrate(db)).toContain(STORE_RULES);

    const rows = await db.prisma.$queryRawUnsafe<{ name: string; status: string }[]>(
      'SELECT name, status::text AS status FROM pets ORDER BY id',
    );
    expect(rows).toEqual(legacy.map(([name, , , , expected]) => ({ name, status: expected })));
    await expect(
      db.prisma.$executeRawUnsafe('UPDATE inventory_items SET quantity = -1 WHERE pet_id = 1'),
    ).rejects.toThrow();
    await expect(
      db.prisma.$executeRawUnsafe('INSERT INTO orders (pet_id, quantity, updated_at) VALUES (1, 0, now())'),
    ).rejects.toThrow();
  });
});
