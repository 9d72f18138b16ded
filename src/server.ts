/**
 * The server process: configuration, database (migrated, or checked with MIGRATE_ON_START=false),
 * HTTP server, signals. Started by main.ts, in the process itself (one process) or in each worker
 * the primary forks (WEB_CONCURRENCY > 1, src/cluster.ts). Nothing else lives here.
 */
// First: starts the OpenTelemetry SDK, when OTEL_* asks for it, before node:http and pg are loaded.
import './telemetry/preload';
import 'reflect-metadata';
import cluster from 'node:cluster';
import fs from 'node:fs';
import tty from 'node:tty';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { loadConfig, readEnvFile, warnRemovedSettings, type Config } from './config';
import { buildApp } from './app';
import { seedDemoData } from './modules/demo-seed';
import { openDatabase } from './db/open';
import type { Database } from './db/database';
import { loggerOptions } from './http/request-log';
import { checkRedisDatabase } from './http/rate-limit';
import { checkPortFree, reportStartupFailure, StartupError } from './db/startup';
import { readManifest, TrustedDocumentsError } from './policy/trusted-documents';
import { ApiKeyService } from './modules/auth/api-key.service';
import { adminSocketPath, startAdminSocket } from './modules/auth/api-key.socket';
import { SHUTDOWN_MESSAGE } from './cluster';
import { joinClusterMetrics } from './telemetry/metrics';
import { tracePglite } from './telemetry/pglite-tracing';
import { shutdownTracing, tracingEnabled } from './telemetry/tracing';

/** Unix socket paths are limited to about 107 bytes. */
const MAX_SOCKET_PATH = 100;

/** Known once the configuration is valid: what start-up failures are explained against. */
let startingConfig: Config | undefined;

/** One step of the shutdown: what it closes (for the log) and how. */
interface Closer {
  name: string;
  close(): Promise<void>;
}

/**
 * A terminal that has hung up (its window closed: the SIGHUP that stops the server) answers every
 * write with EIO, and Node 20 aborts on exit when it cannot restore such a terminal's settings
 * (ResetStdio's assertion), then spins at full CPU in its crash handler instead of exiting. Closing
 * those descriptors first makes Node skip them, as it does any descriptor a program closed. A terminal
 * still there (or a pipe, a file) is left alone.
 */
function releaseHungUpTerminal(terminals: number[]): void {
  for (const fd of terminals) {
    try {
      fs.writeSync(fd, Buffer.alloc(0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EIO') fs.closeSync(fd);
    }
  }
}

/** Starts the server; a failure to start is reported (one line per problem) and exits 1. */
export function startServer(): void {
  // Which are terminals is read now: once hung up, a terminal no longer says it is one.
  const terminals = [0, 1, 2].filter((fd) => tty.isatty(fd));
  if (terminals.length) process.once('exit', () => releaseHungUpTerminal(terminals));
  main().catch((error: unknown) => {
    reportStartupFailure(error, startingConfig);
    process.exit(1);
  });
}

/**
 * A worker of src/cluster.ts drains once, whichever way it is told: the primary's message, or a
 * signal of its own (sent to the whole process group: a terminal's Ctrl-C, systemd). A second one is
 * not "force" here: the primary escalates (a second signal to it kills the workers). Told before it
 * is serving, it just exits: nothing is in flight yet.
 */
let drainWorker: (() => void) | null = null;
function listenAsWorker(hangUpStops: boolean): void {
  let told = false;
  const stop = () => {
    if (told) return;
    told = true;
    if (drainWorker) drainWorker();
    else process.exit(0);
  };
  process.on('message', (message) => message === SHUTDOWN_MESSAGE && stop());
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // A worker whose primary is gone (killed: no SIGTERM reached us) stops as if told to, starting or
  // serving: its port is the primary's, so it would never be sent another connection.
  process.once('disconnect', stop);
  // Without trusted documents, SIGHUP stops the process, as it does the primary.
  if (hangUpStops) process.on('SIGHUP', stop);
}

/**
 * What can be said before the database is opened: settings this release no longer reads and a
 * pooler without a direct URL (warnings), and a bad trusted-documents manifest (a StartupError: it
 * stops the start before the database is opened, seconds on a first start; buildApp reads the files
 * again and validates the documents).
 */
function checkBeforeOpening(
  config: Pick<Config, 'database' | 'trustedDocuments' | 'env' | 'removedSettings' | 'cache' | 'rateLimit'>,
  log: Logger,
): void {
  const settings = config.database;
  // A worker's primary has said it (src/cluster.ts).
  if (!cluster.isWorker) warnRemovedSettings(config, log);
  if (config.env === 'production' && settings.kind === 'pglite' && !cluster.isWorker) {
    // Allowed (a demo, a smoke test of the production settings), but never silently: a forgotten
    // DATABASE_URL would otherwise give a one-process service keeping its data in a local directory.
    log.warn(
      { dataDir: settings.dataDir },
      'NODE_ENV=production without DATABASE_URL: running on the embedded database (one process, data in a local ' +
        'directory), meant for development, demos and tests; set DATABASE_URL to a PostgreSQL server (docs/deployment.md).',
    );
  }
  if (settings.kind === 'postgres' && settings.pgbouncer && !settings.directUrl) {
    // In process, the response cache hears of other processes' writes by LISTEN only: without it, never used.
    const responseCache =
      config.cache.responseTtlS > 0 && !config.rateLimit.redisUrl
        ? ', the response cache (RESPONSE_CACHE_TTL_S) is never used (REDIS_URL keeps it in Redis instead)'
        : '';
    log.warn(
      'DATABASE_URL goes through a pooler (pgbouncer=true) and DATABASE_DIRECT_URL is unset: GraphQL subscriptions are ' +
        `refused (each WebSocket connection is closed with 1013 at connection_init, as when events are being missed)${responseCache} and ` +
        'revoked API keys are read on every request (no cache), because LISTEN needs a session; ' +
        "set DATABASE_DIRECT_URL to the primary's own address (not the pooler's) to fix it.",
    );
  }
  if (config.trustedDocuments.mode !== 'off') {
    try {
      for (const file of config.trustedDocuments.files) readManifest(file);
    } catch (error) {
      if (error instanceof TrustedDocumentsError) throw new StartupError(`TRUSTED_DOCUMENTS_FILE: ${error.message}`);
      throw error;
    }
  }
}

/** With trusted documents on, SIGHUP re-reads their manifests instead of shutting down. */
function reloadTrustedDocumentsOnHangUp(app: FastifyInstance): void {
  const trusted = app.trustedDocuments;
  if (!trusted) return;
  process.on('SIGHUP', () => {
    try {
      const documents = trusted.reload();
      app.log.info({ documents }, 'SIGHUP: trusted documents re-read');
    } catch (error) {
      // The list in use stays: a half-written or broken file must not take the service down.
      app.log.error(
        { err: { message: (error as Error).message } },
        'SIGHUP: trusted documents NOT re-read, the previous list stays in use',
      );
    }
  });
}

/** The longest a stop waits for the last spans to reach the collector, and the margin it keeps. */
const TRACE_FLUSH_MAX_MS = 3000;
const TRACE_FLUSH_MARGIN_MS = 200;

/**
 * Runs `closers` in order on SIGTERM/SIGINT (SIGHUP too, without trusted documents), on an uncaught
 * error, or when a worker is told to drain (drainWorker); logs each step that fails, then "stopped".
 */
function closeGracefully(app: FastifyInstance, closers: Closer[], shutdownTimeoutMs: number): void {
  // A worker's SIGTERM, SIGINT and SIGHUP are listenAsWorker's (above).
  const skip: ('SIGHUP' | 'SIGTERM' | 'SIGINT')[] = app.trustedDocuments || cluster.isWorker ? ['SIGHUP'] : [];
  if (cluster.isWorker) skip.push('SIGTERM', 'SIGINT');
  // Its own lines ("killed by timeout", "second SIGTERM, exiting") through the app's logger: JSON
  // in production like every other line, where its default (console) wrote plain text to stderr.
  const grace = closeWithGrace({ delay: shutdownTimeoutMs, skip, logger: app.log }, async ({ signal, err }) => {
    const deadline = Date.now() + shutdownTimeoutMs;
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal: signal ?? 'the primary' }, 'shutting down: finishing in-flight requests');
    for (const closer of closers) {
      try {
        await closer.close();
      } catch (error) {
        app.log.error({ err: error, step: closer.name }, 'shutdown step failed');
      }
    }
    app.log.info('stopped');
    // The spans still buffered go to the collector, within what is left of SHUTDOWN_TIMEOUT_MS (a
    // margin kept for the exit) and never more than TRACE_FLUSH_MAX_MS: a collector away or not
    // answering loses them rather than turning a clean stop into "killed by timeout" (exit 1).
    const flushMs = Math.min(TRACE_FLUSH_MAX_MS, deadline - Date.now() - TRACE_FLUSH_MARGIN_MS);
    if (!(await shutdownTracing(flushMs)))
      app.log.warn({ withinMs: Math.max(0, flushMs) }, 'traces not exported: the collector did not answer in time');
  });
  drainWorker = () => void grace.close();
}

/**
 * The API-key admin socket (embedded database only: it can be opened by this process only, so
 * `npm run apikey` goes through here); undefined for PostgreSQL, or when the path is too long.
 */
async function startKeyAdminSocket(
  database: Config['database'],
  db: Database,
  app: FastifyInstance,
): Promise<FastifyInstance | undefined> {
  if (database.kind !== 'pglite' || !database.dataDir) return undefined;
  const socket = adminSocketPath(database.dataDir);
  if (socket.length > MAX_SOCKET_PATH) {
    app.log.warn(
      { socket },
      'data directory path too long for the API-key admin socket; stop the server to manage keys',
    );
    return undefined;
  }
  return startAdminSocket(socket, new ApiKeyService(db.prisma, undefined, app.log), async () => {
    const line = await seedDemoData(db);
    app.log.info(line);
    return line;
  });
}

async function main(): Promise<void> {
  const envFile = readEnvFile();
  const config = loadConfig();
  if (cluster.isWorker) {
    listenAsWorker(config.trustedDocuments.mode === 'off');
    // The primary may ask for metrics while this worker starts: it answers (empty) from now on.
    joinClusterMetrics();
  }
  startingConfig = config;
  const log = pino(loggerOptions(config));
  // Node writes a warning as plain text on stderr, in several lines (node-postgres warns once that
  // sslmode=require means verify-full, docs/postgres-topologies.md): a log pipeline reading JSON lines
  // split it. Logged as every other line instead (Node's own printer is this event's listener).
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) =>
    log.warn({ warning: { name: warning.name, code: warning.code } }, warning.message),
  );
  if (envFile) log.info(`read ${envFile}`);
  checkBeforeOpening(config, log);
  // A worker shares the port its primary checked and holds (src/cluster.ts): probing it here would
  // find it taken.
  if (!cluster.isWorker) await checkPortFree(config.host, config.port);
  await checkRedisDatabase(config.rateLimit.redisUrl);
  const db = await openDatabase(config, {
    progress: (msg) => log.info(msg),
    warn: (msg) => log.warn(msg),
    info: (msg) => log.info(msg),
  });
  if (tracingEnabled() && db.pglite) tracePglite(db.pglite);
  const app = await buildApp({ config, db, loggerInstance: log });
  // Started once the app listens (below); the shutdown closes it if it was.
  let adminSocket: FastifyInstance | undefined = undefined;

  /**
   * The shutdown sequence, in order; anything that holds the process open gets its step here.
   * 1. HTTP: stop accepting connections, let every in-flight request finish and be answered (each
   *    answer during shutdown carries `Connection: close`, idle keep-alive sockets are closed at
   *    once: http/http-basics.plugin.ts), then Fastify's onClose hooks (Apollo, the API-key cache's
   *    listener, Redis).
   * 2. The API-key admin socket (embedded database only).
   * 3. The database, last: in-flight requests needed it.
   * One SIGTERM/SIGINT runs it and exits 0; a second signal, or SHUTDOWN_TIMEOUT_MS passing, exits
   * 1 at once (close-with-grace). Apollo's own signal handling is off (graphql/apollo.ts): Fastify
   * owns shutdown.
   */
  const closers: Closer[] = [
    { name: 'http', close: () => app.close() },
    { name: 'admin socket', close: async () => void (await adminSocket?.close()) },
    { name: 'database', close: () => db.close() },
  ];
  reloadTrustedDocumentsOnHangUp(app);
  closeGracefully(app, closers, config.shutdownTimeoutMs);
  await app.listen({ host: config.host, port: config.port });
  adminSocket = await startKeyAdminSocket(config.database, db, app);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const graphql = `http://localhost:${port}/graphql`;
  app.log.info(
    { database: db.kind, graphql, ...(cluster.isWorker ? { worker: cluster.worker?.id } : {}) },
    'petstore gateway ready',
  );
}
