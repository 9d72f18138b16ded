/**
 * The database, in either of its two modes, behind one interface: a PrismaClient for the services'
 * writes and transactions, a SQL reader for their hot reads, a raw SQL session for the migration
 * runner (Prisma cannot run multi-statement migration files), and LISTEN for notifications (the
 * API-key cache's invalidation).
 *
 * - pglite: PostgreSQL compiled to WASM, in-process, persisted under a data directory (or in memory).
 * - postgres: a PostgreSQL server through a pg Pool shared by Prisma and the migration runner.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, types as pgTypes, type CustomTypesConfig } from 'pg';
import lockfile from 'proper-lockfile';
import { PrismaClient, type Prisma } from '../generated/prisma/client';
import type { DatabaseConfig } from '../config';
import { listenPglite, PostgresListener, type ListenHandlers, type Unlisten } from './listen';

/** A raw SQL session: what the migration runner needs and nothing more. */
export interface SqlSession {
  /** Runs SQL text that may hold several statements, without parameters. */
  exec(sql: string): Promise<void>;
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

/**
 * Reads that skip Prisma Client: a statement composed with `Prisma.sql` (values always bound as
 * parameters, identifiers only from constants) run directly on the driver, outside any transaction.
 * Rows come back with the model's field names (the statements alias their columns) and types: int8
 * as bigint, timestamptz as Date, enums as their text.
 *
 * Why: Prisma 6's client engine compiles every query in WASM on the event loop. Measured in issue 6,
 * a one-row `findUnique` costs ~0.6-0.8 ms of CPU and a 50-row `findMany` ~3 ms, against ~0.1 ms for
 * the same statement on the driver; on the read paths that dominate traffic that was most of a
 * request's cost. Writes, and every read inside a transaction, stay on Prisma.
 */
export interface SqlReader {
  query<T>(statement: Prisma.Sql): Promise<T[]>;
}

export interface Database {
  readonly kind: DatabaseConfig['kind'];
  readonly prisma: PrismaClient;
  readonly sql: SqlReader;
  /** The embedded engine itself (pglite mode only): tests dump it as a template. */
  readonly pglite?: PGlite;
  /** The connection pool (postgres mode only): its counts are the metrics' pool gauges. */
  readonly pool?: Pick<Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /**
   * Runs `fn` with a session that holds the migration lock (a PostgreSQL advisory lock), so two
   * processes starting at once never apply the same migration twice.
   */
  withMigrationSession<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * LISTENs on a channel (src/db/listen.ts): `onNotify` hears every notification committed on it,
   * `onState` whether it is being listened to (on PostgreSQL, a dedicated connection that
   * reconnects by itself). Stopped by the returned function, or by `close`.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Unlisten>;
  close(): Promise<void>;
}

export interface CreateDatabaseOptions {
  /** Extra Prisma client options (tests use `log` to count statements). */
  prismaOptions?: Omit<ConstructorParameters<typeof PrismaClient>[0], 'adapter'>;
  /** PGlite only: start from this dump (tests share one migrated template). */
  pgliteLoadDataDir?: Blob;
  /** Called with the text of every statement the SQL reader sends (tests count statements). */
  onReaderStatement?: (sql: string) => void;
}

/** int8 as bigint (node-postgres gives strings by default); every other type as node-postgres does. */
const PG_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgTypes.builtins.INT8 ? BigInt : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/** Arbitrary, fixed key of the advisory lock taken while migrating. */
const MIGRATION_LOCK_KEY = 72_707_369;

export async function createDatabase(config: DatabaseConfig, options: CreateDatabaseOptions = {}): Promise<Database> {
  return config.kind === 'pglite'
    ? createPgliteDatabase(config.dataDir, options)
    : createPostgresDatabase(config, options);
}

async function createPgliteDatabase(dataDir: string | null, options: CreateDatabaseOptions): Promise<Database> {
  let unlock: (() => Promise<void>) | undefined;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir);
  }
  const pglite = new PGlite({
    dataDir: dataDir ?? undefined,
    extensions: { pg_trgm },
    loadDataDir: options.pgliteLoadDataDir,
  });
  await pglite.waitReady;
  // pglite-prisma-adapter 0.6 is typed against driver-adapter-utils 6.10 and Prisma 6.19 against
  // 6.19; the runtime contract is the same, the declared types differ: hence the one cast.
  const adapter = new PrismaPGlite(pglite) as unknown as PrismaPg;
  const prisma = new PrismaClient({ ...options.prismaOptions, adapter });
  // PGlite parses int8 as bigint itself; its query() waits for any open transaction to end.
  const sql: SqlReader = {
    async query<T>(statement: Prisma.Sql) {
      options.onReaderStatement?.(statement.text);
      return (await pglite.query<T>(statement.text, statement.values)).rows;
    },
  };
  const session: SqlSession = {
    exec: async (sql) => {
      await pglite.exec(sql);
    },
    query: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
  };
  const listeners = listenerSet();
  return {
    kind: 'pglite',
    prisma,
    sql,
    pglite,
    // One process owns a PGlite data directory, so the session needs no lock.
    withMigrationSession: (fn) => fn(session),
    listen: (channel, handlers) => listeners.add(listenPglite(pglite, channel, handlers)),
    async close() {
      await listeners.stopAll();
      await prisma.$disconnect();
      await pglite.close();
      await unlock?.();
    },
  };
}

/** Another process holds the embedded database open. */
export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt it. A lock
 * (`<dataDir>.lock`, refreshed while held, stale after 15 s if its holder died) keeps a second
 * server, or a CLI beside a running server, out.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, {
      stale: 15_000,
      update: 5_000,
      onCompromised: (error) => console.error(`lock on ${dataDir} lost: ${error.message}`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DatabaseInUseError(
        `The embedded database in ${dataDir} is in use by another process (a running server?). ` +
          'Stop that process first, or point DATABASE_URL at a PostgreSQL server.',
      );
    }
    throw error;
  }
}

/** Defaults of DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS (config.ts). */
const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 15_000;

/**
 * Every wait for PostgreSQL is bounded (docs/operations.md): a pooled connection within
 * `connectTimeoutMs` (pg's default waits forever), each statement within `statementTimeoutMs` on the
 * server (statement_timeout) and on the client (query_timeout, for a server that does not answer at
 * all), and a transaction left open between statements is ended by the server
 * (idle_in_transaction_session_timeout). TCP keep-alive notices a peer that vanished.
 */
function createPool(config: Extract<DatabaseConfig, { kind: 'postgres' }>): Pool {
  const statementTimeoutMs = config.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new Pool({
    connectionString: config.url,
    max: config.poolSize,
    connectionTimeoutMillis: config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1_000,
    keepAlive: true,
  });
  // An idle client that loses its connection emits 'error'; without a listener that crashes Node.
  pool.on('error', () => undefined);
  guardRelease(pool);
  return pool;
}

/**
 * A connection that failed (its socket died, the server ended it, a query got no answer) must never
 * go back to the pool, nor stay checked out. pg-pool destroys a client released with an error, but
 * Prisma's adapter releases its transaction clients without one whatever happened, and when the
 * connection of an interactive transaction dies, Prisma never releases it at all: measured, after
 * pg_terminate_backend under 50 writers every client of the pool stayed checked out, dead, for good,
 * and every request then waited for a connection. So every client is watched while checked out and,
 * on a connection-level failure, released at once with an error (destroyed: its slot is free for a
 * new connection); the holder's later release is then a no-op. pg has no option for this: written here.
 */
function guardRelease(pool: Pool): void {
  type Release = (err?: Error | boolean) => void;
  type Checkout = { release: Release };
  /** The checked-out clients, each with the function that destroys it. */
  const evict = new WeakMap<object, () => void>();
  const failed = (client: object) => evict.get(client)?.();
  pool.on('connect', (client) => {
    client.on('error', () => failed(client));
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.catch((error: unknown) => {
          if (isConnectionFailure(error)) failed(client);
        });
      }
      return result;
    };
  });
  const guard = <C extends Checkout>(client: C): C => {
    const release = client.release;
    let released = false;
    const releaseOnce: Release = (err) => {
      if (released) return;
      released = true;
      evict.delete(client);
      release(err);
    };
    evict.set(client, () => releaseOnce(new Error('connection failed while checked out')));
    client.release = releaseOnce;
    return client;
  };
  const connect = pool.connect.bind(pool) as (
    cb?: (err: Error | undefined, client: Checkout, done: Release) => void,
  ) => Promise<Checkout> | void;
  (pool as unknown as { connect: typeof connect }).connect = (cb) => {
    if (!cb) return (connect() as Promise<Checkout>).then(guard);
    return connect((err, client) => {
      if (err) return cb(err, client, () => undefined);
      const guarded = guard(client);
      cb(undefined, guarded, guarded.release);
    });
  };
}

/** Not an SQL error of the statement but a failure of the connection itself. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}

async function createPostgresDatabase(
  config: Extract<DatabaseConfig, { kind: 'postgres' }>,
  options: CreateDatabaseOptions,
): Promise<Database> {
  const url = config.url;
  const pool = createPool(config);
  const prisma = new PrismaClient({ ...options.prismaOptions, adapter: new PrismaPg(pool) });
  const names = preparedStatementNames();
  const sql: SqlReader = {
    async query<T>(statement: Prisma.Sql) {
      options.onReaderStatement?.(statement.text);
      const result = await pool.query({
        name: names(statement.text),
        text: statement.text,
        values: statement.values as unknown[],
        types: PG_TYPES,
      });
      return result.rows as T[];
    },
  };
  const listeners = listenerSet();
  // One LISTEN connection for every channel of this process (opened by the first `listen`).
  const listener = new PostgresListener(url);
  return {
    kind: 'postgres',
    prisma,
    sql,
    pool,
    listen: (channel, handlers) => listeners.add(listener.listen(channel, handlers)),
    async withMigrationSession(fn) {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        try {
          return await fn({
            exec: async (sql) => {
              await client.query(sql);
            },
            query: async <T>(sql: string, params?: unknown[]) =>
              (await client.query(sql, params as unknown[])).rows as T[],
          });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      await listeners.stopAll();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * Reader statements run as named prepared statements: each connection parses and plans a statement
 * text once, then sends only its parameters (node-postgres prepares a name on first use per
 * connection). The texts come from a fixed set of builders (one per list, filter combination and
 * loader), so the names are few; the map is bounded anyway.
 */
function preparedStatementNames(limit = 1000): (text: string) => string {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined) {
      if (names.size >= limit) names.clear();
      name = `r_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
}

/** The subscriptions still open, so that closing the database closes them too (no leaked handles). */
function listenerSet() {
  const open = new Set<Unlisten>();
  return {
    async add(started: Promise<Unlisten>): Promise<Unlisten> {
      const unlisten = await started;
      const stop: Unlisten = async () => {
        if (open.delete(stop)) await unlisten();
      };
      open.add(stop);
      return stop;
    },
    async stopAll(): Promise<void> {
      await Promise.all([...open].map((stop) => stop()));
    },
  };
}
