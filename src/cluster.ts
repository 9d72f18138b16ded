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
import type { Config } from './config';
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
  if (!config.rateLimit.redisUrl) {
    log.warn(
      { workers: count },
      `REDIS_URL is unset: each of the ${count} workers counts rate limits and cost budgets on its own, so a caller ` +
        `can get up to ${count} times RATE_LIMIT_MAX (and its cost budget) per window; set REDIS_URL to share one count`,
    );
  }

  const restarts = { total: 0 };
  const metricsServer =
    config.metrics.port > 0 ? await serveClusterMetrics(config, log, () => serving.size, restarts) : null;

  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    worker: null,
    startedAt: 0,
    failures: 0,
    timer: null,
  }));
  const live = () => slots.filter((s) => s.worker && !s.worker.isDead()).length;
  /** Workers that listen (serve) now: the cluster_workers gauge. */
  const serving = new Set<Worker>();
  let stopping = false;
  let ready = false;
  let listening = 0;

  const fork = (slot: Slot): void => {
    slot.timer = null;
    const worker = cluster.fork({ PETSTORE_WORKER_SLOT: String(slot.index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    log.info({ worker: worker.id, slot: slot.index, pid: worker.process.pid }, 'worker started');
    worker.once('listening', (address) => {
      serving.add(worker);
      log.info({ worker: worker.id, slot: slot.index, pid: worker.process.pid }, 'worker listening');
      if (ready) return;
      listening++;
      // The first worker started alone; the others follow once it listens.
      if (listening === 1) for (const other of slots.slice(1)) fork(other);
      if (listening === count) {
        ready = true;
        const graphql = `http://localhost:${address.port}/graphql`;
        log.info({ workers: count, database: config.database.kind, graphql }, 'petstore gateway ready');
      }
    });
    worker.once('exit', (code, signal) => {
      serving.delete(worker);
      const lived = Date.now() - slot.startedAt;
      if (slot.worker === worker) slot.worker = null;
      if (stopping) {
        log.info({ worker: worker.id, slot: slot.index, pid: worker.process.pid, code, signal }, 'worker stopped');
        exitCodes.push(code ?? 1);
        if (live() === 0) void finish();
        return;
      }
      if (!ready) {
        // Its own fatal line said why: the start failed, whatever the other workers do.
        log.fatal(
          { worker: worker.id, pid: worker.process.pid, code, signal },
          'a worker stopped before the gateway was ready (its line above says why): stopping',
        );
        startShutdown('SIGTERM', 1);
        return;
      }
      slot.failures = lived < STABLE_AFTER_MS ? slot.failures + 1 : 1;
      const delay = respawnDelay(slot.failures);
      restarts.total++;
      log.error(
        {
          worker: worker.id,
          slot: slot.index,
          pid: worker.process.pid,
          code,
          signal,
          livedMs: lived,
          restartInMs: delay,
        },
        'worker died; replacing it',
      );
      slot.timer = setTimeout(() => fork(slot), delay);
    });
  };

  const exitCodes: number[] = [];
  let failed = 0;
  let killTimer: NodeJS.Timeout | null = null;

  const finish = async (): Promise<void> => {
    if (killTimer) clearTimeout(killTimer);
    if (metricsServer) {
      metricsServer.closeAllConnections();
      await new Promise<void>((resolve) => metricsServer.close(() => resolve()));
    }
    const code = failed || exitCodes.some((c) => c !== 0) ? 1 : 0;
    log.info({ exitCodes }, code === 0 ? 'stopped' : 'stopped, not cleanly');
    // pino writes asynchronously: flush before the process ends.
    log.flush(() => process.exit(code));
  };

  const startShutdown = (signal: NodeJS.Signals, exitCode = 0): void => {
    if (stopping) {
      log.error({ signal }, 'second signal: killing the workers left');
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    failed = exitCode;
    for (const slot of slots) if (slot.timer) clearTimeout(slot.timer);
    log.info({ signal, workers: live() }, 'shutting down: every worker finishes its in-flight requests');
    for (const slot of slots) {
      const worker = slot.worker;
      if (!worker || worker.isDead()) continue;
      // A message, not a signal: a worker also gets the signal itself when it was sent to the whole
      // process group (a terminal's Ctrl-C, systemd), and drains once whichever comes first.
      if (worker.isConnected()) worker.send(SHUTDOWN_MESSAGE);
      else worker.process.kill('SIGTERM');
    }
    killTimer = setTimeout(() => {
      log.error(
        { timeoutMs: config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS },
        'workers did not stop in time: killing them',
      );
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      failed = 1;
    }, config.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS);
    killTimer.unref();
    if (live() === 0) void finish();
  };

  process.on('SIGTERM', () => startShutdown('SIGTERM'));
  process.on('SIGINT', () => startShutdown('SIGINT'));
  process.on('SIGHUP', () => {
    if (config.trustedDocuments.mode === 'off') return startShutdown('SIGHUP');
    // Each worker re-reads the trusted documents' manifests (src/server.ts).
    for (const slot of slots) slot.worker?.process.kill('SIGHUP');
  });

  log.info({ workers: count }, `starting ${count} workers`);
  fork(slots[0]!);
}

/**
 * GET /metrics on METRICS_HOST:METRICS_PORT: every worker's metrics summed (prom-client's
 * AggregatorRegistry), then the primary's own: workers alive and replacements made.
 */
async function serveClusterMetrics(
  config: Config,
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
    server.listen(config.metrics.port, config.metrics.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    writeFatal(error, (e) => {
      const line = explainListenError(e, { host: config.metrics.host, port: config.metrics.port });
      return line && { message: line.message.replace(/PORT/g, 'METRICS_PORT'), setting: 'METRICS_PORT' };
    });
    process.exit(1);
  });
  log.info({ metrics: `http://${config.metrics.host}:${config.metrics.port}/metrics` }, 'metrics listening');
  return server;
}
