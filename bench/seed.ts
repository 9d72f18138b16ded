/**
 * The benchmark's data set, written with set-based SQL (a few statements, well under a second) into a
 * fresh PostgreSQL database or a fresh PGlite data directory, after the gateway's own migrations
 * (src/db/migrate.ts), so every target reads exactly the schema the gateway ships.
 *
 * 20 categories; 1,000 pets (ids 1..1000); one stock entry each; 5,000 orders (ids 1..5000), times
 * BENCH_SCALE (`DATA`). The
 * rows respect the store rules' pet-status lifecycle (available <=> in stock, pending <=> no stock
 * and open orders, sold => no stock and no open orders):
 * - pets 1..100 are kept for W4 (placeOrder): available, 100,000 in stock each, no orders;
 * - every 10th pet above 100 is sold (stock 0, only completed orders); the others are in stock;
 * - 75% of the orders are complete (with a ship date), 1 in 50 has lost its pet (petId null).
 * Names carry quotes, a backslash and non-ASCII letters, so JSON escaping is compared too.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { projectRoot } from '../src/config';
import { createDatabase } from '../src/db/database';
import { migrate } from '../src/db/migrate';

/**
 * `BENCH_SCALE` multiplies the data set (categories, pets, orders; default 1): at 1 the 20 categories
 * and 1,000 stock rows are small enough that PostgreSQL hashes whole tables where a production
 * database, far larger, gets index probes. `BENCH_SCALE=100` (2,000 categories, 100,000 pets,
 * 500,000 orders, ~10 s to seed) shows those plans. Pets per category stay 50.
 */
export const SCALE = benchScale(process.env.BENCH_SCALE);

function benchScale(value: string | undefined): number {
  const n = Number(value ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(`BENCH_SCALE: an integer of 1-1000, not ${value}`);
  return n;
}

export const DATA = {
  categories: 20 * SCALE,
  pets: 1000 * SCALE,
  orders: 5000 * SCALE,
  w4Pets: 100,
  w4Stock: 100_000,
} as const;

export const SEED_SQL = `
INSERT INTO categories (id, name, description, updated_at)
SELECT g, 'Category ' || lpad(g::text, ${String(DATA.categories).length}, '0'),
       CASE WHEN g % 4 = 0 THEN NULL ELSE 'Pets of kind ' || g || ', "friendly" & calm' END, now()
FROM generate_series(1, ${DATA.categories}) g;

INSERT INTO pets (id, name, category_id, status, updated_at)
SELECT g,
       (ARRAY['Rex', 'Bella', 'Zoë', 'Mr "Whiskers"', 'Luna', 'Ñandú', 'Max', 'Kiwi \\ the bird'])[1 + g % 8] || ' ' || g,
       1 + (g - 1) % ${DATA.categories},
       (CASE WHEN g > ${DATA.w4Pets} AND g % 10 = 0 THEN 'sold' ELSE 'available' END)::"PetStatus",
       now()
FROM generate_series(1, ${DATA.pets}) g;

INSERT INTO inventory_items (pet_id, quantity, updated_at)
SELECT g,
       CASE WHEN g <= ${DATA.w4Pets} THEN ${DATA.w4Stock} WHEN g % 10 = 0 THEN 0 ELSE 1 + (g * 37) % 500 END,
       now()
FROM generate_series(1, ${DATA.pets}) g;

INSERT INTO orders (id, pet_id, quantity, ship_date, complete, updated_at)
SELECT g, pet, 1 + g % 3,
       CASE WHEN done THEN timestamptz '2026-01-01 00:00:00+00' + g * interval '17 minutes 0.123 seconds' END,
       done, now()
FROM (SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE ${DATA.w4Pets + 1} + (g * 7) % ${DATA.pets - DATA.w4Pets} END AS pet
      FROM generate_series(1, ${DATA.orders}) g) s,
     LATERAL (SELECT (g % 4 <> 0) OR pet IS NULL OR pet % 10 = 0 AS done) d;

SELECT setval(pg_get_serial_sequence('categories', 'id'), ${DATA.categories});
SELECT setval(pg_get_serial_sequence('pets', 'id'), ${DATA.pets});
SELECT setval(pg_get_serial_sequence('orders', 'id'), ${DATA.orders});
ANALYZE;
`;

async function seed(config: Parameters<typeof createDatabase>[0]): Promise<void> {
  const db = await createDatabase(config);
  try {
    await migrate(db);
    await db.withMigrationSession((session) => session.exec(SEED_SQL));
  } finally {
    await db.close();
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface PostgresDataSet {
  url: string;
  drop(): Promise<void>;
}

/** Creates `petstore_bench_<pid>` next to the admin URL's database, migrated and seeded. */
export async function seedPostgres(adminUrl: string): Promise<PostgresDataSet> {
  const name = `petstore_bench_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  // A large BENCH_SCALE takes longer to write than the gateway's statement timeout allows.
  await seed({ kind: 'postgres', url: url.toString(), poolSize: 2, statementTimeoutMs: 30 * 60_000 });
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A fresh PGlite data directory, migrated and seeded (PGlite needs ~3 s to initialise one). */
export async function seedPglite(dataDir: string): Promise<void> {
  fs.rmSync(dataDir, { recursive: true, force: true });
  await seed({ kind: 'pglite', dataDir });
}

/**
 * An API key for the benchmark, once the gateway has them (issue 5): BENCH_API_KEY when set, else one
 * created with the gateway's own CLI (`npm run apikey`) in the given database, before any server holds
 * it open. Null when this build has no API keys.
 */
export function createApiKey(dbEnv: Record<string, string>): { key: string | null; note: string } {
  if (process.env.BENCH_API_KEY) return { key: process.env.BENCH_API_KEY, note: 'API key from BENCH_API_KEY' };
  const cli = path.join(projectRoot, 'dist', 'src', 'modules', 'auth', 'api-key.cli.js');
  if (!fs.existsSync(cli)) return { key: null, note: 'no API keys on this build' };
  const result = spawnSync(
    process.execPath,
    [cli, 'create', '--name', `bench-${process.pid}`, '--scopes', 'orders:read,orders:write'],
    {
      cwd: projectRoot,
      env: { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...dbEnv },
      encoding: 'utf8',
    },
  );
  const last = result.stdout.trim().split('\n').at(-1)?.trim();
  if (result.status !== 0 || !last) {
    throw new Error(`npm run apikey failed (${result.status}): ${result.stderr || result.stdout}`);
  }
  return { key: last, note: 'API key created with npm run apikey (scopes orders:read,orders:write)' };
}
