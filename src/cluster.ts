/**
 * The primary of WEB_CONCURRENCY worker processes (node:cluster), all serving one port: it serves
 * nothing itself, and loads only this, the configuration and the logger (main.ts).
 *
 * - Start: the port is checked, then ONE worker starts alone; the others are forked once it listens.
 *   A start that fails (a bad database URL, a schema behind with MIGRATE_ON_START=false) is then the
 *   one line of that one worker, and the primary exits 1 instead of starting N copies of the failure.
 * - A worker that dies later (a crash, an out-of-memory kill) is replaced at once; one that dies again
 *   within STABLE_AFTER_MS of its start is replaced after a backoff (0.5 s doubling to 30 s), so a
 *   crash loop does not spin. Connections in flight on the dead worker are lost; new ones go to the
 *   others (Node's primary hands out connections round-robin).
 * - SIGTERM or SIGINT (SIGHUP too, unless trusted documents are on: then it is forwarded, and each
 *   worker re-reads its manifests): every worker is told to drain (finish in-flight requests, close
 *   its database) and the primary exits 0 once all have exited 0, nothing left behind. A second signal,
 *   or SHUTDOWN_TIMEOUT_MS plus a margin passing, kills the workers left (SIGKILL) and exits 1.
 * - METRICS_PORT is served here, the sum over the workers (prom-client's AggregatorRegistry asks each
 *   worker over IPC: src/telemetry/metrics.ts) plus the primary's own `cluster_*` series.
 *
 * What is shared between workers lives outside them: rate-limit and cost-budget counters in Redis
 * (REDIS_URL; without it each worker counts alone), subscription events through PostgreSQL's
 * LISTEN/NOTIFY (every worker listens), the API-key cache's invalidations likewise.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import { pino, type Logger } from 'pino';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import { warnRemovedSettings, type Config } from './config';
import { writeFatal } from './fatal-log';
import { loggerOptions } from './http/request-log';
import { checkPortFree, explainListenError } from './port-check';

/** A worker that dies sooner than this after its start counts as crashing in a loop. */
export const STABLE_AFTER_MS = 10_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** Beyond SHUTDOWN_TIMEOUT_MS (each worker's own bound), what the primary waits before it kills. */
const SHUTDOWN_MARGIN_MS = 5_000;

/** The IPC message that tells a worker to drain and exit (src/server.ts). */
export const SHUTDOWN_MESSAGE = 'petstore:shutdown';

/**
 * How long to wait before replacing a worker, after `failures` deaths in a row of workers in its slot
 * that each lived less than STABLE_AFTER_MS: none for the first, then 0.5 s, 1 s, 2 s ... up to 30 s.
 */
export function respawnDelay(failures: number): number {
  return failures <= 1 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 2));
}

interface Slot {
  /** 1..N: a replacement takes the slot of the worker it replaces. */
  index: number;
  worker: Worker | null;
  startedAt: number;
  /** Deaths in a row of workers that lived less than STABLE_AFTER_MS. */
  failures: number;
  timer: NodeJS.Timeout | null;
  /** A SIGHUP came while its worker started: forwarded once it listens (src/server.ts hears it then). */
  hangUp: boolean;
}

/** What the primary's workers need to know of the configuration. */
interface PrimarySettings {
  /** WEB_CONCURRENCY. */
  workers: number;
  /** Said in the "ready" line. */
  databaseKind: Config['database']['kind'];
  /** Each worker's own bound on draining; the primary waits SHUTDOWN_MARGIN_MS more before it kills. */
  shutdownTimeoutMs: number;
}

/**
 * The workers' slots and their lives: forks (the first alone, the others once it listens), replaces
 * those that die (with a backoff for a crash loop), and drains them all on shutdown.
 */
class Primary {
  readonly slots: Slot[];
  /** Workers that listen (serve) now: the cluster_workers gauge. */
  readonly serving = new Set<Worker>();
  /** Workers replaced after they died: cluster_worker_restarts_total. */
  readonly restarts = { total: 0 };
  /** The cluster's /metrics server (METRICS_PORT), closed last. */
  metricsServer: http.Server | null = null;
  private stopping = false;
  private ready = false;
  private listening = 0;
  private readonly exitCodes: number[] = [];
  private failed = 0;
  private killTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: PrimarySettings,
    private readonly log: Logger,
  ) {
    this.slots = Array.from({ length: settings.workers }, (_, i) => ({
      index: i + 1,
      worker: null,
      startedAt: 0,
      failures: 0,
      timer: null,
      hangUp: false,
    }));
  }

  /** Workers alive (started and not exited). */
  live(): number {
    return this.slots.filter((s) => s.worker && !s.worker.isDead()).length;
  }

  fork(slot: Slot): void {
    slot.timer = null;
    // A new worker reads the manifests as it starts.
    slot.hangUp = false;
    const worker = cluster.fork({ PETSTORE_WORKER_SLOT: String(slot.index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    this.log.info({ worker: worker.id, slot: slot.index, pid: worker.process.pid }, 'worker started');
    worker.once('listening', (address) => this.onListening(slot, worker, address.port));
    worker.once('exit', (code, signal) => this.onExit(slot, worker, code, signal));
  }

  private onListening(slot: Slot, worker: Worker, port: number): void {
    const count = this.settings.workers;
    this.serving.add(worker);
    this.log.info({ worker: worker.id, slot: slot.index, pid: worker.process.pid }, 'worker listening');
    if (slot.hangUp) {
      slot.hangUp = false;
      worker.process.kill('SIGHUP');
    }
    // Told to stop while this one started (its listen under way): it drains, and no other is started.
    if (this.ready || this.stopping) return;
    this.listening++;
    // The first worker started alone; the others follow once it listens.
    if (this.listening === 1) for (const other of this.slots.slice(1)) this.fork(other);
    if (this.listening === count) {
      this.ready = true;
      const graphql = `http://localhost:${port}/graphql`;
      this.log.info({ workers: count, database: this.settings.databaseKind, graphql }, 'petstore gateway ready');
    }
  }

  private onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    this.serving.delete(worker);
    const lived = Date.now() - slot.startedAt;
    if (slot.worker === worker) slot.worker = null;
    const ids = { worker: worker.id, slot: slot.index, pid: worker.process.pid, code, signal };
    if (this.stopping) {
      this.log.info(ids, 'worker stopped');
      this.exitCodes.push(code ?? 1);
      if (this.live() === 0) void this.finish();
      return;
    }
    if (!this.ready) {
      // Its own fatal line said why: the start failed, whatever the other workers do.
      this.log.fatal(
        { worker: worker.id, pid: worker.process.pid, code, signal },
        'a worker stopped before the gateway was ready (its line above says why): stopping',
      );
      this.startShutdown('SIGTERM', 1);
      return;
    }
    slot.failures = lived < STABLE_AFTER_MS ? slot.failures + 1 : 1;
    const delay = respawnDelay(slot.failures);
    this.restarts.total++;
    this.log.error({ ...ids, livedMs: lived, restartInMs: delay }, 'worker died; replacing it');
    slot.timer = setTimeout(() => this.fork(slot), delay);
  }

  private async finish(): Promise<void> {
    if (this.killTimer) clearTimeout(this.killTimer);
    const metricsServer = this.metricsServer;
    if (metricsServer) {
      metricsServer.closeAllConnections();
      await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
    }
    const code = this.failed || this.exitCodes.some((c) => c !== 0) ? 1 : 0;
    this.log.info({ exitCodes: this.exitCodes }, code === 0 ? 'stopped' : 'stopped, not cleanly');
    // pino writes asynchronously: flush before the process ends.
    this.log.flush(() => process.exit(code));
  }

  /**
   * SIGHUP with trusted documents on: each worker re-reads the manifests. A worker still starting
   * has no handler for the signal yet (it would die of it): it gets it once it listens.
   */
  hangUp(): void {
    for (const slot of this.slots) {
      const worker = slot.worker;
      if (!worker || worker.isDead()) continue;
      if (this.serving.has(worker)) worker.process.kill('SIGHUP');
      else slot.hangUp = true;
    }
  }

  /** Tells every worker to drain; a second call (a second signal) kills them and exits 1. */
  startShutdown(signal: NodeJS.Signals, exitCode = 0): void {
    if (this.stopping) {
      this.log.error({ signal }, 'second signal: killing the workers left');
      for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    this.stopping = true;
    this.failed = exitCode;
    for (const slot of this.slots) if (slot.timer) clearTimeout(slot.timer);
    this.log.info({ signal, workers: this.live() }, 'shutting down: every worker finishes its in-flight requests');
    for (const slot of this.slots) {
      const worker = slot.worker;
      if (!worker || worker.isDead()) continue;
      // A message, not a signal: a worker also gets the signal itself when it was sent to the whole
      // process group (a terminal's Ctrl-C, systemd), and drains once whichever comes first.
      if (worker.isConnected()) worker.send(SHUTDOWN_MESSAGE);
      else worker.process.kill('SIGTERM');
    }
    const timeoutMs = this.settings.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS;
    this.killTimer = setTimeout(() => {
      this.log.error({ timeoutMs }, 'workers did not stop in time: killing them');
      for (const slot of this.slots) slot.worker?.process.kill('SIGKILL');
      this.failed = 1;
    }, timeoutMs);
    this.killTimer.unref();
    if (this.live() === 0) void this.finish();
  }
}

/** Runs the primary until every worker has stopped; exits the process. */
export async function runPrimary(config: Config): Promise<void> {
  const log: Logger = pino(loggerOptions(config)).child({ role: 'primary' });
  try {
    // Before any worker: a port clash is one line, not N workers failing to listen.
    await checkPortFree(config.host, config.port);
  } catch (error) {
    writeFatal(error, (e) => explainListenError(e, config));
    process.exit(1);
  }
  const count = config.workers;
  warnRemovedSettings(config, log);
  if (!config.rateLimit.redisUrl) {
    log.warn(
      { workers: count },
      `REDIS_URL is unset: each of the ${count} workers counts rate limits and cost budgets on its own, so a caller ` +
        `can get up to ${count} times RATE_LIMIT_MAX (and its cost budget) per window; set REDIS_URL to share one count`,
    );
    if (config.database.kind === 'postgres' && config.database.replicaUrls?.length) {
      // The read-your-writes window is kept by the worker that took the write; the next request of its
      // caller may reach another worker, which reads a replica that has not replayed the write yet.
      log.warn(
        { workers: count },
        `REDIS_URL is unset: a caller's read-your-writes window (DB_READ_YOUR_WRITES_MS) holds only in the worker ` +
          `that took its write, so its next request, served by any of the ${count} workers, may read a replica ` +
          'without it (DATABASE_REPLICA_URLS); set REDIS_URL to share the window',
      );
    }
  }
  const primary = new Primary(
    { workers: count, databaseKind: config.database.kind, shutdownTimeoutMs: config.shutdownTimeoutMs },
    log,
  );
  if (config.metrics.port > 0) {
    primary.metricsServer = await serveClusterMetrics(
      config.metrics,
      log,
      () => primary.serving.size,
      primary.restarts,
    );
  }

  process.on('SIGTERM', () => primary.startShutdown('SIGTERM'));
  process.on('SIGINT', () => primary.startShutdown('SIGINT'));
  process.on('SIGHUP', () => {
    if (config.trustedDocuments.mode === 'off') return primary.startShutdown('SIGHUP');
    // Each worker re-reads the trusted documents' manifests (src/server.ts).
    primary.hangUp();
  });

  log.info({ workers: count }, `starting ${count} workers`);
  primary.fork(primary.slots[0]!);
}

/**
 * GET /metrics on METRICS_HOST:METRICS_PORT: every worker's metrics summed (prom-client's
 * AggregatorRegistry), then the primary's own: workers alive and replacements made.
 */
async function serveClusterMetrics(
  listen: Pick<Config['metrics'], 'host' | 'port'>,
  log: Logger,
  serving: () => number,
  restarts: { total: number },
): Promise<http.Server> {
  const aggregator = new AggregatorRegistry();
  const own = new Registry();
  new Gauge({
    name: 'cluster_workers',
    help: 'Worker processes serving: listening, not died since (WEB_CONCURRENCY of them when all is well)',
    registers: [own],
    collect() {
      this.set(serving());
    },
  });
  let reported = 0;
  new Counter({
    name: 'cluster_worker_restarts_total',
    help: 'Workers replaced after they died',
    registers: [own],
    collect() {
      this.inc(restarts.total - reported);
      reported = restarts.total;
    },
  });
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    Promise.all([aggregator.clusterMetrics(), own.metrics()]).then(
      ([workers, primary]) => res.writeHead(200, { 'content-type': aggregator.contentType }).end(workers + primary),
      (error: unknown) => {
        log.error({ err: error }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    // Only the metrics listener here: its settings are the ones named.
    writeFatal(error, (e) => explainListenError(e, { host: '', port: -1, metrics: listen }));
    process.exit(1);
  });
  log.info({ metrics: `http://${listen.host}:${listen.port}/metrics` }, 'metrics listening');
  return server;
}
