/**
 * T0, "the limit": the smallest server that answers the benchmark's workloads with the same bytes
 * as the gateway. Fastify plus hand-written SQL (one statement per request, prepared), JSON written
 * by hand in the field order of the GraphQL selections. It parses no GraphQL: it recognises the exact
 * documents of workloads.ts and answers 400 to anything else. It lives under bench/ and never in src/.
 *
 * Environment: PORT, HOST, and DATABASE_URL (PostgreSQL through a pg Pool of DB_POOL_SIZE) or
 * PGLITE_DATA_DIR (the embedded database, in-process).
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { W1_QUERY, W2_QUERY, W3_QUERY, W4_MUTATION, W6_QUERY } from './workloads';

type Row = Record<string, unknown>;
type Query = (name: string, text: string, values: unknown[]) => Promise<Row[]>;

async function openDb(): Promise<{ query: Query; close: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new Pool({ connectionString: url, max: Number(process.env.DB_POOL_SIZE ?? 10) });
    pool.on('error', () => undefined);
    return {
      // A named statement is parsed and planned once per connection.
      query: async (name, text, values) => (await pool.query({ name, text, values })).rows as Row[],
      close: () => pool.end(),
    };
  }
  const dataDir = process.env.PGLITE_DATA_DIR;
  if (!dataDir) throw new Error('T0 needs DATABASE_URL or PGLITE_DATA_DIR');
  // require, not import(): the CommonJS build, the one whose class the agent counts statements on.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const { pg_trgm } =
    require('@electric-sql/pglite/contrib/pg_trgm') as typeof import('@electric-sql/pglite/contrib/pg_trgm');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = new PGlite(dataDir, { extensions: { pg_trgm } });
  await db.waitReady;
  return {
    query: async (_name, text, values) => (await db.query<Row>(text, values)).rows,
    close: () => db.close(),
  };
}

const STATUS: Record<string, string> = { available: 'AVAILABLE', pending: 'PENDING', sold: 'SOLD' };
const str = JSON.stringify;
const cursor = (sortId: string, id: string) => Buffer.from(str([sortId, id])).toString('base64url');
const pageSize = (v: unknown) =>
  Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 100 ? (v as number) : 20;
const ID = /^\d{1,18}$/;

const SQL = {
  pet: `SELECT id::text AS id, name, category_id::text AS category_id, status::text AS status FROM pets WHERE id = $1`,
  pets: `SELECT p.id::text AS id, p.name, p.status::text AS status, c.id::text AS cid, c.name AS cname, i.quantity
         FROM pets p JOIN categories c ON c.id = p.category_id LEFT JOIN inventory_items i ON i.pet_id = p.id
         ORDER BY p.id LIMIT $1`,
  orders: `SELECT o.id::text AS id, o.quantity, o.complete,
                  to_char(o.ship_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ship,
                  p.id::text AS pid, p.name AS pname, c.id::text AS cid, c.name AS cname
           FROM orders o LEFT JOIN pets p ON p.id = o.pet_id LEFT JOIN categories c ON c.id = p.category_id
           ORDER BY o.id DESC LIMIT $1`,
  categoryPets: `SELECT c.id::text AS cid, c.name AS cname, p.id::text AS id, p.name, p.status::text AS status, i.quantity
                 FROM (SELECT id, name FROM categories ORDER BY id LIMIT $1) c
                 LEFT JOIN LATERAL (SELECT id, name, status FROM pets WHERE category_id = c.id ORDER BY id LIMIT $2) p ON true
                 LEFT JOIN inventory_items i ON i.pet_id = p.id
                 ORDER BY c.id, p.id`,
  // The store rules in one statement: take stock only from an available pet that has enough, open the
  // order, and make the pet pending when the last unit went (the UPDATE's row lock serialises buyers).
  place: `WITH taken AS (
            UPDATE inventory_items i SET quantity = i.quantity - $2, updated_at = now()
            FROM pets p WHERE i.pet_id = $1 AND p.id = i.pet_id AND p.status = 'available' AND i.quantity >= $2
            RETURNING i.pet_id, i.quantity
          ), placed AS (
            INSERT INTO orders (pet_id, quantity, complete, updated_at)
            SELECT pet_id, $2, false, now() FROM taken RETURNING id, pet_id, quantity, complete
          ), settled AS (
            UPDATE pets SET status = 'pending', updated_at = now() FROM taken
            WHERE pets.id = taken.pet_id AND taken.quantity = 0
          )
          SELECT id::text AS id, pet_id::text AS pet_id, quantity, complete FROM placed`,
};

const gqlError = (message: string, code: string, status: number) =>
  `{"errors":[{"message":${str(message)},"extensions":{"code":"${code}","status":${status}}}],"data":null}`;

async function main(): Promise<void> {
  const db = await openDb();
  const handlers = new Map<string, (vars: Record<string, unknown>) => Promise<string>>([
    [
      W1_QUERY,
      async (vars) => {
        const id = String(vars.id ?? '');
        if (!ID.test(id))
          return gqlError('ID: must be a 64-bit integer id in decimal digits', 'VALIDATION_FAILED', 400);
        const [p] = await db.query('t0_pet', SQL.pet, [id]);
        return p
          ? `{"data":{"pet":{"id":"${p.id}","name":${str(p.name)},"categoryId":"${p.category_id}","status":"${STATUS[p.status as string]}"}}}`
          : '{"data":{"pet":null}}';
      },
    ],
    [
      W2_QUERY,
      async (vars) => {
        const first = pageSize(vars.first);
        const rows = await db.query('t0_pets', SQL.pets, [first + 1]);
        const more = rows.length > first;
        const page = more ? rows.slice(0, first) : rows;
        let edges = '';
        let last: string | null = null;
        for (const r of page) {
          last = cursor('id-asc', r.id as string);
          const inventory = r.quantity == null ? 'null' : `{"quantity":${r.quantity}}`;
          edges += `${edges ? ',' : ''}{"cursor":"${last}","node":{"id":"${r.id}","name":${str(r.name)},"status":"${STATUS[r.status as string]}","category":{"id":"${r.cid}","name":${str(r.cname)}},"inventory":${inventory}}}`;
        }
        return `{"data":{"pets":{"edges":[${edges}],"pageInfo":{"hasNextPage":${more},"endCursor":${last ? `"${last}"` : 'null'}}}}}`;
      },
    ],
    [
      W3_QUERY,
      async (vars) => {
        const first = pageSize(vars.first);
        const rows = await db.query('t0_orders', SQL.orders, [first + 1]);
        const more = rows.length > first;
        const page = more ? rows.slice(0, first) : rows;
        let nodes = '';
        for (const r of page) {
          const pet =
            r.pid == null
              ? 'null'
              : `{"id":"${r.pid}","name":${str(r.pname)},"category":{"id":"${r.cid}","name":${str(r.cname)}}}`;
          nodes += `${nodes ? ',' : ''}{"id":"${r.id}","quantity":${r.quantity},"shipDate":${r.ship == null ? 'null' : `"${r.ship}"`},"complete":${r.complete},"pet":${pet}}`;
        }
        const last = page.at(-1);
        const end = last ? `"${cursor('id-desc', last.id as string)}"` : 'null';
        return `{"data":{"orders":{"nodes":[${nodes}],"pageInfo":{"hasNextPage":${more},"endCursor":${end}}}}}`;
      },
    ],
    [
      W6_QUERY,
      async (vars) => {
        const rows = await db.query('t0_category_pets', SQL.categoryPets, [pageSize(vars.first), pageSize(vars.pets)]);
        let nodes = '';
        let pets = '';
        for (const [i, r] of rows.entries()) {
          if (r.id != null) {
            const inventory = r.quantity == null ? 'null' : `{"quantity":${r.quantity}}`;
            pets += `${pets ? ',' : ''}{"id":"${r.id}","name":${str(r.name)},"status":"${STATUS[r.status as string]}","inventory":${inventory}}`;
          }
          if (rows[i + 1]?.cid !== r.cid) {
            nodes += `${nodes ? ',' : ''}{"id":"${r.cid}","name":${str(r.cname)},"pets":{"nodes":[${pets}]}}`;
            pets = '';
          }
        }
        return `{"data":{"categories":{"nodes":[${nodes}]}}}`;
      },
    ],
    [
      W4_MUTATION,
      async (vars) => {
        const petId = String(vars.petId ?? '');
        if (!ID.test(petId))
          return gqlError('ID: must be a 64-bit integer id in decimal digits', 'VALIDATION_FAILED', 400);
        const [o] = await db.query('t0_place', SQL.place, [petId, 1]);
        return o
          ? `{"data":{"placeOrder":{"id":"${o.id}","petId":"${o.pet_id}","quantity":${o.quantity},"complete":${o.complete}}}}`
          : gqlError(`Pet ${petId} cannot be ordered (unknown, not available, or out of stock)`, 'OUT_OF_STOCK', 409);
      },
    ],
  ]);

  /**
   * BENCH_T0_BURN_US (a control, off by default): CPU the process spends per GraphQL request before
   * its statement, busy, as a gateway spends it parsing and validating. With it T0 serves at about a
   * gateway's rate, and PostgreSQL's CPU per request of the same statements can be read at that rate:
   * a backend woken less often pays more per statement (bench/notes/explain.md, round 9).
   */
  const burnUs = Number(process.env.T0_BURN_US ?? 0);
  if (!Number.isFinite(burnUs) || burnUs < 0)
    throw new Error(`BENCH_T0_BURN_US must be a number of microseconds (0 or more), not ${process.env.T0_BURN_US}`);
  const burnNs = BigInt(Math.round(burnUs * 1000));
  const burn = () => {
    const until = process.hrtime.bigint() + burnNs;
    while (process.hrtime.bigint() < until);
  };

  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.post('/graphql', async (request, reply) => {
    const body = request.body as { query?: unknown; variables?: Record<string, unknown> } | undefined;
    const handler = typeof body?.query === 'string' ? handlers.get(body.query) : undefined;
    reply.type('application/json; charset=utf-8');
    if (!handler) {
      reply.code(400);
      return gqlError('T0 answers only the benchmark documents', 'BAD_REQUEST', 400);
    }
    if (burnNs > 0n) burn();
    // Apollo ends every body with a newline: the same bytes on the wire.
    return (await handler(body?.variables ?? {})) + '\n';
  });
  app.get('/pets/:petId', async (request, reply) => {
    const { petId } = request.params as { petId: string };
    reply.type('application/json; charset=utf-8');
    if (!ID.test(petId)) {
      reply.code(400);
      return `{"code":"VALIDATION_FAILED","message":"petId: must be a 64-bit integer id in decimal digits","status":400}`;
    }
    const [p] = await db.query('t0_pet', SQL.pet, [petId]);
    if (!p) {
      reply.code(404);
      return `{"code":"NOT_FOUND","message":"Pet ${petId} not found","status":404}`;
    }
    return `{"id":${p.id},"name":${str(p.name)},"categoryId":${p.category_id},"status":"${p.status}"}`;
  });
  const close = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 4100) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
