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
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool, types as pgTypes, type CustomTypesConfig } from 'pg';
import lockfile from 'proper-lockfile';
import { LRUCache } from 'lru-cache';
import { PrismaClient, type Prisma } from '../generated/prisma/client';
import { describeDbUrl, pgbouncerFlag, type DatabaseConfig } from '../config';
import { listenPglite, PostgresListener, type ListenHandlers, type Unlisten } from './listen';
import { coalescing, type Statement } from './coalesce';
import { registerPoolName } from './pool-names';
import { isRetryableReadError, isSchemaBehindError, ReplicaRouter } from './read-routing';

/** A raw SQL session: what the migration runner needs and nothing more. */
export interface SqlSession {
  /**
   * The session holds no lock between transactions (behind a pooler without DATABASE_DIRECT_URL):
   * each transaction of the runner takes a transaction-level lock itself.
   */
  lockPerTransaction?: boolean;
  /** Hears that another process holds the migrations' lock (lockPerTransaction: the runner asks for it). */
  waiting?: (msg: string) => void;
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
 * request's cost. Writes that are one call of a store function go on the driver too (`writer`); every
 * other write, and every read inside a transaction, stays on Prisma.
 */
export interface SqlReader {
  query<T>(statement: Prisma.Sql): Promise<T[]>;
}

export interface Database {
  readonly kind: DatabaseConfig['kind'];
  readonly prisma: PrismaClient;
  readonly sql: SqlReader;
  /**
   * A statement that writes in one round trip (a store function: `store_place_order`), run as it is
   * on the primary, in its own transaction: never coalesced, never routed to a replica. Rows as the
   * reader returns them (int8 as bigint, timestamptz as Date). Why not Prisma's `$queryRaw`: its
   * engine serialises every statement and its result through WASM, measured at 11 % of the
   * gateway's CPU per `placeOrder` (docs/benchmarks.md, round 11); the statement is the same.
   */
  readonly writer: SqlReader;
  /** The embedded engine itself (pglite mode only): tracing wraps it; the tests set template settings through it. */
  readonly pglite?: PGlite;
  /**
   * Asks the primary `SELECT 1` (/readyz). PostgreSQL: on a connection of its own, outside the pool
   * (`readinessConnection`), so that a pool merely busy serving requests never holds the check back.
   */
  ping(): Promise<void>;
  /** The connection pool (postgres mode only): its counts are the metrics' pool gauges. */
  readonly pool?: Pick<Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
  /**
   * Every pool (PostgreSQL: the primary's, then each replica's), with its state: the metrics' pool
   * label and /readyz's replica check. Absent on PGlite.
   */
  readonly pools?: () => PoolInfo[];
  /**
   * Starts `caller`'s read-your-writes window (its reads go to the primary for DB_READ_YOUR_WRITES_MS).
   * Present when there are replicas.
   */
  readonly noteWrite?: (caller: string) => void;
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

/** One connection pool and its state. */
export interface PoolInfo {
  /** `primary`, `replica-1`, ...: the label of metrics and the `db.pool` attribute of traces. */
  name: string;
  role: 'primary' | 'replica';
  /** Serving reads (a replica that failed is out until it answers again). */
  up: boolean;
  /** Why a replica is out. */
  reason?: string;
  /** Reader statements it served. */
  reads: number;
  counts: Pick<Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;
}

export interface CreateDatabaseOptions {
  /** Hears what an operator should know while running (a replica out, a pooler detected); console.warn by default. */
  warn?: (msg: string) => void;
  /** Hears good news (a replica back). */
  info?: (msg: string) => void;
  /** Extra Prisma client options (tests use `log` to count statements). */
  prismaOptions?: Omit<ConstructorParameters<typeof PrismaClient>[0], 'adapter'>;
  /** Called with every statement the SQL reader or the writer sends, text and values (tests count and explain them). */
  onReaderStatement?: (sql: string, values: readonly unknown[]) => void;
}

/** int8 as bigint (node-postgres gives strings by default); every other type as node-postgres does. */
const PG_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pgTypes.builtins.INT8 ? BigInt : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/** A reader that reports each statement (`onReaderStatement`: tests count and explain them), then sends it. */
function reportingReader(
  onStatement: CreateDatabaseOptions['onReaderStatement'],
  send: <T>(statement: Statement) => Promise<T[]>,
): SqlReader {
  return {
    // async: whatever goes wrong reaches the caller as a rejection, never as a throw.
    async query<T>(statement: Prisma.Sql) {
      onStatement?.(statement.text, statement.values);
      return send<T>(statement);
    },
  };
}

/**
 * PGlite's own parsers differ from node-postgres's (PG_TYPES) on two types, so its rows take
 * node-postgres's: int8 as bigint (PGlite gives a number, exact only to 2^53), and timestamptz
 * through postgres-date (PGlite's `new Date(text)` reads PostgreSQL's `0001-01-01 00:00:00+00` in
 * V8's non-ISO form, which maps years 0-99 to 1950-2049: a ship date of year 1 came back as 2001).
 */
const PGLITE_PARSERS = {
  [pgTypes.builtins.INT8]: (value: string) => BigInt(value),
  [pgTypes.builtins.TIMESTAMPTZ]: pgTypes.getTypeParser(pgTypes.builtins.TIMESTAMPTZ, 'text') as (
    value: string,
  ) => Date,
};

/** Arbitrary, fixed key of the advisory lock taken while migrating. */
export const MIGRATION_LOCK_KEY = 72_707_369;

export async function createDatabase(config: DatabaseConfig, options: CreateDatabaseOptions = {}): Promise<Database> {
  return config.kind === 'pglite'
    ? createPgliteDatabase(config.dataDir, options)
    : createPostgresDatabase(config, options);
}

async function createPgliteDatabase(dataDir: string | null, options: CreateDatabaseOptions): Promise<Database> {
  let unlock: (() => Promise<void>) | undefined;
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir, options.warn ?? ((msg: string) => console.warn(msg)));
  }
  const pglite = new PGlite({
    dataDir: dataDir ?? undefined,
    extensions: { pg_trgm },
  });
  await pglite.waitReady;
  // pglite-prisma-adapter 0.6 is typed against driver-adapter-utils 6.10 and Prisma 6.19 against
  // 6.19; the runtime contract is the same, the declared types differ: hence the one cast.
  const adapter = new PrismaPGlite(pglite) as unknown as PrismaPg;
  const prisma = new PrismaClient({ ...options.prismaOptions, adapter });
  // PGlite's query() waits for any open transaction to end. Reads by key of one turn are coalesced
  // here too (coalesce.ts): each statement is a trip through the engine. The writer sends alike.
  const send = async <T>(statement: Statement): Promise<T[]> =>
    (await pglite.query<T>(statement.text, statement.values, { parsers: PGLITE_PARSERS })).rows;
  const run = coalescing<PGlite>((_engine, statement) => send(statement));
  const sql = reportingReader(options.onReaderStatement, (statement) => run(pglite, statement));
  const writer = reportingReader(options.onReaderStatement, send);
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
    writer,
    pglite,
    ping: async () => {
      await pglite.query('SELECT 1');
    },
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

/** How long the data directory's lock outlives a holder that died without releasing it. */
const LOCK_STALE_MS = 15_000;

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt it. A lock
 * (`<dataDir>.lock`, refreshed while held, stale after 15 s if its holder died) keeps a second
 * server, or a CLI beside a running server, out.
 */

async function lockDataDir(dataDir: string, warn: (msg: string) => void): Promise<() => Promise<void>> {
  try {
    // A lock goes stale when its holder stops refreshing it: dead, or only paused (a laptop asleep,
    // SIGSTOP, an event loop blocked for 15 s). A server that answers on its admin socket is alive,
    // and taking its lock would open the directory in two processes; a dead one's socket refuses.
    if (await answers(adminSocketPath(dataDir))) {
      throw Object.assign(new Error('a server answers on its admin socket'), { code: 'ELOCKED' });
    }
    return await lockfile.lock(dataDir, {
      stale: LOCK_STALE_MS,
      update: 5_000,
      // Said as the process logs (JSON in production), not as a plain line on stderr.
      onCompromised: (error) => warn(`lock on ${dataDir} lost: ${error.message}`),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DatabaseInUseError(
        `The embedded database in ${dataDir} is in use by another process (a running server?). ` +
          'Stop that process first, or point DATABASE_URL at a PostgreSQL server. ' +
          `A server that was killed (SIGKILL, out of memory) leaves its lock ${dataDir}.lock behind for ` +
          `${LOCK_STALE_MS / 1000} s after its last refresh: start again then.`,
      );
    }
    throw error;
  }
}

/** The local admin socket of a server on the data directory `dataDir` (src/modules/auth/api-key.socket.ts). */
export const adminSocketPath = (dataDir: string): string => `${dataDir}.admin.sock`;

/** Whether a process accepts connections on the Unix socket `socketPath` (a missing file: no). */
function answers(socketPath: string): Promise<boolean> {
  if (!fs.existsSync(socketPath)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Defaults of DB_CONNECT_TIMEOUT_MS and DB_STATEMENT_TIMEOUT_MS (config.ts). */
const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 15_000;

type PostgresConfig = Extract<DatabaseConfig, { kind: 'postgres' }>;

/** The URL without Prisma's `pgbouncer` parameter (node-postgres has no use for it). */
export function driverUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.searchParams.has('pgbouncer')) return url;
    u.searchParams.delete('pgbouncer');
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The planner settings of the gateway's sessions, as the startup packet's `options`.
 *
 * `enable_memoize=off`: a page with to-one relations (orders with their pet and its category) is one
 * join ordered and cut by `LIMIT` (src/read/compiler.ts). PostgreSQL costs that join over every row
 * of the table before the limit, so it puts a Memoize cache in front of each relation's index probe,
 * expecting the same pet again and again; a page of 21 orders has 21 distinct pets and never hits.
 * Measured with pgbench on the gateway's own prepared statements at BENCH_SCALE=100 (100,000 pets,
 * 500,000 orders; bench/notes/explain.md, round 8): W3's statement 1.7-1.9x the transactions per
 * second with it off, W2's 1.1-1.3x, W6's unchanged; at the bench's default size all three within
 * ±10 %. A session setting, so it changes no other client of the database. Behind a transaction-mode
 * pooler no startup parameter is sent: set it on the gateway's role there (docs/postgres-topologies.md).
 */
export const PLANNER_OPTIONS = '-c enable_memoize=off';

/**
 * The session settings every connection of the pool gets as startup parameters, or none behind a
 * transaction-mode pooler: PgBouncer refuses startup parameters it does not know (only those in its
 * `ignore_startup_parameters` pass), and a session setting would not follow the transactions anyway.
 * Behind a pooler, transactions set the timeouts with SET LOCAL instead (transactionPrelude).
 */
export function startupParameters(config: PostgresConfig): {
  statement_timeout?: number;
  idle_in_transaction_session_timeout?: number;
  options?: string;
} {
  if (config.pgbouncer) return {};
  const statementTimeoutMs = config.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  return {
    statement_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs,
    options: PLANNER_OPTIONS,
  };
}

/**
 * Every wait for PostgreSQL is bounded (docs/operations.md): a pooled connection within
 * `connectTimeoutMs` (pg's default waits forever), each statement within `statementTimeoutMs` on the
 * server (statement_timeout) and on the client (query_timeout, for a server that does not answer at
 * all), and a transaction left open between statements is ended by the server
 * (idle_in_transaction_session_timeout). TCP keep-alive notices a peer that vanished. Behind a
 * pooler the server-side bounds are set per transaction (startupParameters, transactionPrelude).
 */
function boundedConnection(config: PostgresConfig, url: string) {
  return {
    connectionString: driverUrl(url),
    connectionTimeoutMillis: config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    ...startupParameters(config),
    query_timeout: (config.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS) + 1_000,
    keepAlive: true,
  };
}

/** The pool of `url`'s connections, each bounded (boundedConnection). */
function createPool(config: PostgresConfig, url: string, size: number = config.poolSize): Pool {
  const statementTimeoutMs = config.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS;
  const pool = new Pool({ ...boundedConnection(config, url), max: size });
  // An idle client that loses its connection emits 'error'; without a listener that crashes Node.
  pool.on('error', () => undefined);
  guardRelease(pool, config.pgbouncer ? transactionPrelude(statementTimeoutMs) : undefined);
  return pool;
}

/**
 * /readyz's `SELECT 1` on the primary, on a connection of its own (opened by the first check, kept,
 * dropped when it fails and opened again by the next check). Through the pool, the check waited behind
 * the requests being served: a pool merely busy (a burst, every connection in use, requests queued)
 * failed it after READINESS_TIMEOUT_MS while the database answered, taking the process out of its
 * load balancer, and every process at once under the same load. Bounded as the pool's connections
 * are (boundedConnection).
 */
function readinessConnection(config: PostgresConfig): { ping(): Promise<void>; close(): Promise<void> } {
  let client: Promise<Client> | null = null;
  let closed = false;
  const drop = (which: Promise<Client>) => {
    if (client === which) client = null;
    which.then((c) => c.end()).catch(() => undefined);
  };
  const open = (): Promise<Client> => {
    const c = new Client({ ...boundedConnection(config, config.url), application_name: 'petstore-readiness' });
    const opened = c.connect().then(() => c);
    // A connection lost while idle emits 'error'; without a listener that crashes Node.
    c.on('error', () => drop(opened));
    return opened;
  };
  return {
    async ping() {
      if (closed) throw new Error('the database is closed');
      const current = (client ??= open());
      try {
        await (await current).query('SELECT 1');
      } catch (error) {
        drop(current);
        throw error;
      }
    },
    async close() {
      closed = true;
      const current = client;
      client = null;
      await current?.then((c) => c.end()).catch(() => undefined);
    },
  };
}

/**
 * Behind a transaction-mode pooler: Prisma's `BEGIN` becomes `BEGIN; SET LOCAL ...` (one simple-query
 * round trip, as before), so every interactive transaction is bounded on the server as a session
 * setting would have bounded it, and nothing outlives the transaction on the pooled server connection.
 */
function transactionPrelude(statementTimeoutMs: number): string {
  return (
    `BEGIN; SET LOCAL statement_timeout = ${statementTimeoutMs}; ` +
    `SET LOCAL idle_in_transaction_session_timeout = ${statementTimeoutMs}`
  );
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
function guardRelease(pool: Pool, beginPrelude?: string): void {
  type Release = (err?: Error | boolean) => void;
  type Checkout = { release: Release };
  /** The checked-out clients, each with the function that destroys it. */
  const evict = new WeakMap<object, () => void>();
  const failed = (client: object) => evict.get(client)?.();
  pool.on('connect', (client) => {
    client.on('error', () => failed(client));
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (beginPrelude) args = withPrelude(args, beginPrelude);
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

/** Prisma's adapter starts a transaction with the text `BEGIN` (a string or a query config): adds the prelude. */
function withPrelude(args: unknown[], prelude: string): unknown[] {
  const [first, ...rest] = args;
  if (first === 'BEGIN') return [prelude, ...rest];
  if (first && typeof first === 'object' && (first as { text?: unknown }).text === 'BEGIN') {
    return [{ ...(first as object), text: prelude }, ...rest];
  }
  return args;
}

/** Not an SQL error of the statement but a failure of the connection itself. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P');
}

/** A server in the wrong role: a replica that is a primary, or a primary that is a standby. */
export class DatabaseTopologyError extends Error {
  override name = 'DatabaseTopologyError';
  constructor(
    message: string,
    /** The variable whose value is the fix (a fatal JSON line's `setting`). */
    readonly setting: string,
  ) {
    super(message);
  }
}

/**
 * The replicas' pools (DATABASE_REPLICA_URLS) and the router that picks one for each read and takes
 * a failing one out; null without replicas. Each replica's pool uses prepared statements or not as
 * its own URL says (`?pgbouncer=true`).
 */
function replicaRouter(
  config: PostgresConfig,
  primary: Pool,
  reader: ReturnType<typeof preparedReader>,
  log: { warn: (msg: string) => void; info?: (msg: string) => void },
): ReplicaRouter<Pool> | null {
  if (!config.replicaUrls?.length) return null;
  return new ReplicaRouter<Pool>({
    replicas: config.replicaUrls.map((url, i) => {
      const name = `replica-${i + 1}`;
      registerPoolName(driverUrl(url), name);
      // Each replica may or may not be behind a pooler of its own: its URL says (`?pgbouncer=true`).
      const pooled = pgbouncerFlag(url);
      const replica = createPool({ ...config, pgbouncer: pooled }, url);
      if (pooled) reader.unnamed(replica);
      return { name, where: describeDbUrl(url), pool: replica };
    }),
    probe: async (replica) => {
      const { rows } = await replica.query<{ standby: boolean; replayed: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
      );
      return rows[0]!;
    },
    primaryPosition: async () => {
      const { rows } = await primary.query<{ position: string }>('SELECT pg_current_wal_lsn()::text AS position');
      return rows[0]!.position;
    },
    checkMs: config.replicaCheckMs ?? 1_000,
    readYourWritesMs: config.readYourWritesMs ?? 5_000,
    log: (level, msg) => (level === 'warn' ? log.warn(msg) : log.info?.(msg)),
  });
}

/** The SQL reader: a replica when the router has one for this read, the primary otherwise. */
function routedReader(
  run: ReturnType<typeof preparedReader>['run'],
  pool: Pool,
  router: ReplicaRouter<Pool> | null,
  reads: { primary: number },
  onStatement: CreateDatabaseOptions['onReaderStatement'],
): SqlReader {
  return {
    async query<T>(statement: Prisma.Sql) {
      onStatement?.(statement.text, statement.values);
      if (router) {
        // Reads change nothing: a replica failing at the server level costs a retry elsewhere, never the request.
        for (const replica of router.candidates()) {
          try {
            const rows = await router.whileIn(replica, run<T>(replica.pool, statement));
            replica.reads++;
            return rows;
          } catch (error) {
            if (isSchemaBehindError(error)) continue;
            if (!isRetryableReadError(error)) throw error;
            router.takeOut(replica, (error as Error).message || String((error as { code?: string }).code));
          }
        }
      }
      reads.primary++;
      return run<T>(pool, statement);
    },
  };
}

/**
 * Checks every replica once before serving, and starts the periodic checks: a replica that is no
 * standby (promoted), or a pooler in front of one that refuses the sessions' startup parameters (its
 * URL lacks `?pgbouncer=true`: every check would fail alike, the replica out for good), stops the
 * start (DatabaseTopologyError), with every pool closed. A replica that is down is no reason to stop.
 */
async function startReplicaChecks(router: ReplicaRouter<Pool>, pool: Pool): Promise<void> {
  await router.check();
  const promoted = router.replicas.find((r) => r.reason?.startsWith('not a standby'));
  const pooled = router.replicas.find((r) => /unsupported startup parameter/i.test(r.reason ?? ''));
  if (promoted || pooled) await Promise.all([pool.end(), ...router.replicas.map((r) => r.pool.end())]);
  if (promoted) {
    throw new DatabaseTopologyError(
      `${promoted.name} of DATABASE_REPLICA_URLS (${promoted.where}) is not a standby (pg_is_in_recovery() is false): ` +
        "its reads would not follow the primary's writes. Fix DATABASE_REPLICA_URLS to list streaming replicas only.",
      'DATABASE_REPLICA_URLS',
    );
  }
  if (pooled) {
    const parameter = /unsupported startup parameter:\s*(\S+)/i.exec(pooled.reason!)?.[1] ?? 'a startup parameter';
    throw new DatabaseTopologyError(
      `${pooled.name} of DATABASE_REPLICA_URLS (${pooled.where}) refused the startup parameter ${parameter}: it is a ` +
        'pooler (PgBouncer) that does not accept it. Add ?pgbouncer=true to that URL (the gateway then sends no ' +
        `startup parameters), or add ${parameter} to ignore_startup_parameters in pgbouncer.ini.`,
      'DATABASE_REPLICA_URLS',
    );
  }
  router.start();
}

/** How often a process waiting for the migrations' lock asks for it again. */
export const MIGRATION_LOCK_POLL_MS = 250;

/** What a migrator says, once, when another process holds the migrations' lock. */
export const MIGRATION_LOCK_WAITING =
  "another process is migrating the database (it holds the migrations' lock): waiting for it to finish";

/**
 * Migrations under a session-level advisory lock, on a client of its own on the primary itself
 * (DATABASE_DIRECT_URL, else DATABASE_URL); behind a transaction-mode pooler without a direct URL, a
 * lock per transaction instead. The session has no statement timeout: DB_STATEMENT_TIMEOUT_MS bounds
 * a request's statements, while the lock is waited for as long as another migrator holds it, and a
 * migration (an index built on a large table) takes as long as it takes. `waiting` hears that the
 * lock is held elsewhere.
 */
async function withMigrationLock<T>(
  config: PostgresConfig,
  fn: (session: SqlSession) => Promise<T>,
  waiting: (msg: string) => void,
): Promise<T> {
  if (!config.directUrl && config.pgbouncer) return withTransactionLockedSession(config, fn, waiting);
  const client = new Client({
    connectionString: driverUrl(config.directUrl ?? config.url),
    ...startupParameters({ ...config, pgbouncer: false }),
    statement_timeout: 0,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Asked again and again, never waited for in one statement: a statement blocked on the lock holds
    // a snapshot, which a CREATE INDEX CONCURRENTLY run by the lock's holder waits for (deadlock).
    const locked = async () =>
      (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]))
        .rows[0]!.locked;
    if (!(await locked())) {
      waiting(MIGRATION_LOCK_WAITING);
      while (!(await locked())) await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
    }
    try {
      return await fn({
        exec: async (sql) => {
          await client.query(sql);
        },
        query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[])).rows as T[],
      });
    } finally {
      // A session that was lost took its lock with it: the failure that lost it is the one to tell.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL: the primary's pool (Prisma, the reader's primary reads), a pool per replica (the
 * reader's reads: src/db/read-routing.ts), LISTEN on a session of its own.
 */
async function createPostgresDatabase(config: PostgresConfig, options: CreateDatabaseOptions): Promise<Database> {
  const warn = options.warn ?? ((msg: string) => console.warn(msg));
  const pool = createPool(config, config.url);
  registerPoolName(driverUrl(config.url), 'primary');
  const prisma = new PrismaClient({ ...options.prismaOptions, adapter: new PrismaPg(pool) });
  const reads = { primary: 0 };
  const reader = preparedReader(warn);
  if (config.pgbouncer) reader.unnamed(pool);
  const router = replicaRouter(config, pool, reader, { warn, info: options.info });
  // Reads by key of one turn to one pool become one statement (coalesce.ts), after routing chose the pool.
  const sql = routedReader(coalescing(reader.run), pool, router, reads, options.onReaderStatement);
  if (router) await startReplicaChecks(router, pool);
  const listeners = listenerSet();
  // One LISTEN connection for every channel of this process (opened by the first `listen`). It needs a
  // session of its own: behind a transaction-mode pooler, only DATABASE_DIRECT_URL gives one.
  const listenUrl = config.directUrl ?? (config.pgbouncer ? null : config.url);
  const listener = listenUrl ? new PostgresListener(driverUrl(listenUrl)) : null;
  const pools = (): PoolInfo[] => [
    { name: 'primary', role: 'primary', up: true, reads: reads.primary, counts: pool },
    ...(router?.replicas.map((r): PoolInfo => ({
      name: r.name,
      role: 'replica',
      up: r.up,
      reason: r.reason,
      reads: r.reads,
      counts: r.pool,
    })) ?? []),
  ];
  // Sent as the reader sends a statement to the primary (a hot text named, unnamed behind a pooler),
  // but never coalesced and never routed; behind a pooler, in a transaction bounded on the server.
  const writer = reportingReader(options.onReaderStatement, (statement) =>
    config.pgbouncer ? boundedWrite(pool, statement) : reader.run(pool, statement),
  );
  const readiness = readinessConnection(config);
  return {
    kind: 'postgres',
    prisma,
    sql,
    writer,
    ping: readiness.ping,
    pool,
    pools,
    noteWrite: router ? (caller) => router.writes.wrote(caller) : undefined,
    listen: (channel, handlers) => {
      if (!listener) {
        // Not listening, and never will be: no error (its listeners log an error as a lost connection
        // that is being retried, with a stack). The start says it once (server.ts, checkBeforeOpening).
        handlers.onState(false);
        return Promise.resolve(async () => undefined);
      }
      return listeners.add(listener.listen(channel, handlers));
    },
    withMigrationSession: (fn) => withMigrationLock(config, fn, options.info ?? warn),
    async close() {
      router?.stop();
      await readiness.close();
      await listeners.stopAll();
      await prisma.$disconnect();
      await Promise.all([pool.end(), ...(router?.replicas.map((r) => r.pool.end()) ?? [])]);
    },
  };
}

/**
 * Migrations behind a transaction-mode pooler without DATABASE_DIRECT_URL: a session-level advisory
 * lock would stay on whichever server connection took it, so each of the runner's transactions takes
 * a transaction-level one instead (`lockPerTransaction`, src/db/migrate.ts), with no statement
 * timeout (`SET LOCAL` there). On a client of its own, not the pool's: the pool gives up on any
 * statement after DB_STATEMENT_TIMEOUT_MS, a lock held by another migrator or a long migration included.
 */
async function withTransactionLockedSession<T>(
  config: PostgresConfig,
  fn: (session: SqlSession) => Promise<T>,
  waiting: (msg: string) => void,
): Promise<T> {
  // No startup parameters: the pooler refuses them (startupParameters).
  const client = new Client({ connectionString: driverUrl(config.url) });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn({
      lockPerTransaction: true,
      waiting,
      exec: async (sql) => {
        await client.query(sql);
      },
      query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[])).rows as R[],
    });
  } finally {
    await client.end();
  }
}

/**
 * The writer's statement behind a transaction-mode pooler, where no statement_timeout rides on the
 * session: alone, it would be bounded by the client only (query_timeout), and a write the client gave
 * up on, answered 503 UNAVAILABLE, would still commit on the server once the lock it waited for was
 * free. In a transaction of its own, whose `BEGIN` carries the SET LOCALs (guardRelease), the server
 * cancels it at DB_STATEMENT_TIMEOUT_MS, before the client gives up, and it rolls back. Two round trips
 * more than alone, behind a pooler only.
 */
async function boundedWrite<T>(pool: Pool, statement: Statement): Promise<T[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query({
      text: statement.text,
      values: statement.values as unknown[],
      types: PG_TYPES,
    });
    await client.query('COMMIT');
    client.release();
    return rows as T[];
  } catch (error) {
    if (isConnectionFailure(error)) {
      client.release(error as Error);
    } else {
      // A refusal of the statement (OUT_OF_STOCK, a timeout): the connection is fine once rolled back.
      await client.query('ROLLBACK').then(
        () => client.release(),
        (rollbackError: Error) => client.release(rollbackError),
      );
    }
    throw error;
  }
}

/**
 * Runs reader statements (and the writer's): as named prepared statements on a direct connection (each connection
 * parses and plans a statement text once), unnamed behind a pooler (a name prepared on one server
 * connection is unknown, or already taken, on the next). A pooler nobody told us about shows itself
 * by exactly those errors: then the reader says so once, naming the fix, and goes on unnamed.
 */
function preparedReader(warn: (msg: string) => void) {
  const names = preparedStatementNames();
  /** Pools whose statements go unnamed: behind a pooler (`?pgbouncer=true` on their URL), or found to be. */
  const unnamed = new WeakSet<Pool>();
  return {
    unnamed: (pool: Pool) => unnamed.add(pool),
    run: async function run<T>(pool: Pool, statement: Statement): Promise<T[]> {
      const query = { text: statement.text, values: statement.values as unknown[], types: PG_TYPES };
      if (unnamed.has(pool)) return (await pool.query(query)).rows as T[];
      try {
        const name = names(statement.text);
        return (await pool.query(name ? { ...query, name } : query)).rows as T[];
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 26000: prepared statement does not exist; 42P05: already exists. Both are refused before
        // the statement runs, so sending it again unnamed is safe for the writer's statements too.
        if (code !== '26000' && code !== '42P05') throw error;
        // Reads already in flight fail the same way: one line for all of them.
        if (!unnamed.has(pool))
          warn(
            `DATABASE_URL looks like a transaction-mode pooler (PgBouncer?): ${(error as Error).message}. ` +
              'Add ?pgbouncer=true to DATABASE_URL so that no prepared statement is named; reads go on unnamed meanwhile.',
          );
        unnamed.add(pool);
        return (await pool.query(query)).rows as T[];
      }
    },
  };
}

/**
 * Reader statements run as named prepared statements: each connection parses and plans a statement
 * text once, then sends only its parameters (node-postgres prepares a name on first use per
 * connection, and the server keeps it for the connection's life). The read compiler makes one text
 * per document SHAPE, and clients choose shapes: so a text is named only once it has been seen twice
 * (hot), and at most `limit` texts are ever named in a process. That bounds what every server
 * connection holds; other texts run unnamed (planned each time), which is always correct.
 */
function preparedStatementNames(limit = 500, remembered = 5000): (text: string) => string | undefined {
  const names = new Map<string, string>();
  const seen = new LRUCache<string, true>({ max: remembered });
  return (text) => {
    const name = names.get(text);
    if (name !== undefined) return name;
    if (names.size >= limit) return undefined;
    if (!seen.has(text)) {
      seen.set(text, true);
      return undefined;
    }
    const created = `r_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, created);
    return created;
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
