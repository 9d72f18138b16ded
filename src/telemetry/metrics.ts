/**
 * Prometheus metrics (prom-client), served on a port of their own (METRICS_PORT, bound to
 * METRICS_HOST, 127.0.0.1 by default) so that they are never public by accident: the public port
 * has no /metrics route at all. Off (no hooks, no registry, no cost) when METRICS_PORT is unset or 0.
 *
 * What is measured, and where (docs/operations.md, "Metrics"):
 * - HTTP requests: a duration histogram by method, route pattern (never the raw URL, so ids and query
 *   strings cannot multiply the series) and status, from one onResponse hook;
 * - GraphQL operations: a duration histogram by operation name and type, and errors by code, from a
 *   request step of the service's one Apollo plugin (request-steps.ts); names are bounded (`OperationNames`);
 * - the deprecated GET /pets/{petId}: answers by status (how many legacy calls remain before the sunset);
 * - rate-limit rejections (429 answers) by route;
 * - the PostgreSQL pool (in use, idle, waiting), the API-key cache (hits, misses) and open
 *   subscriptions, read when scraped (collect callbacks), so the hot paths pay nothing for them;
 * - prom-client's default process metrics (event-loop lag, heap, GC, CPU, handles).
 *
 * prom-client does the bookkeeping and the text format; the only hand-written parts are the hooks
 * that feed it, because they depend on this service's routes and error model.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import type { BaseContext } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ResponseCacheStats } from '../common/response-cache-stats';
import type { RequestStep } from '../common/graphql/request-steps';

/**
 * In a worker of src/cluster.ts: answer the primary's requests for metrics over IPC (prom-client's
 * AggregatorRegistry sums them and the primary serves METRICS_PORT). Until createMetrics' registry
 * is ready the answer is empty, so a scrape while a worker starts is not left waiting.
 */
export function joinClusterMetrics(): void {
  new AggregatorRegistry(); // adds the worker's IPC listener (idempotent)
  AggregatorRegistry.setRegistries([]);
}

/** Where the open-subscription count is read from, once subscriptions exist (see `reportOpenSubscriptions`). */
let openSubscriptionsSource: (() => number) | null = null;

/**
 * Plugs a counter of open subscriptions into the `graphql_subscriptions_open` gauge: the function is
 * called at each scrape (never on a hot path). Call it once when the subscription server starts;
 * `null` unplugs it. Process-wide, so the subscription code needs no handle on the metrics.
 */
export function reportOpenSubscriptions(read: (() => number) | null): void {
  openSubscriptionsSource = read;
}

/** What the pool gauges read: node-postgres's `Pool` has exactly these. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** What the API-key cache gauges read (ApiKeyCache counts them). */
export interface CacheCounts {
  hits: number;
  misses: number;
}

export interface MetricsOptions {
  /** Distinct GraphQL operation names kept as labels; later ones are counted as `__other`. */
  maxOperationNames: number;
  /** The route pattern of the deprecated REST path (`/pets/:petId`). */
  deprecatedRoute: string;
  /** The PostgreSQL pool, when there is one (PGlite has a single in-process session: no gauges). */
  pool?: () => PoolCounts | undefined;
  /** Every pool with its name, role, state and reads (PostgreSQL: the primary and each replica). */
  pools?: () => { name: string; role: string; up: boolean; reads: number; counts: PoolCounts }[];
  apiKeyCache?: () => CacheCounts | undefined;
  /** The trusted-document tallies (policy/trusted-documents.ts), when TRUSTED_DOCUMENTS is on. */
  /** The trusted list's tallies (TrustedDocuments.counts, src/policy/trusted-documents.ts). */
  trustedDocuments?: () =>
    { listed: number; refused: Record<string, number>; reloads: { ok: number; failed: number } } | undefined;
  /** The response cache's tallies (http/response-cache.store.ts), when RESPONSE_CACHE_TTL_S > 0. */
  responseCache?: () => ResponseCacheStats | undefined;
}

/** The label of operation names past the bound, of anonymous operations, and of unparsed ones. */
export const OTHER_OPERATION = '__other';
export const ANONYMOUS_OPERATION = '__anonymous';
export const UNKNOWN_OPERATION = '__unknown';
/** The label of names longer than MAX_OPERATION_NAME_LENGTH (a client chooses them, at any length). */
export const OVERSIZED_OPERATION = '__oversized';
/** Longest operation name kept as a label: with `maxOperationNames`, this bounds the /metrics text. */
export const MAX_OPERATION_NAME_LENGTH = 100;

/**
 * Bounds the `operation_name` label: the first `max` distinct names seen keep their own series,
 * every later one folds into `__other`, so a client sending random names cannot explode the series;
 * a name longer than MAX_OPERATION_NAME_LENGTH is `__oversized`, so none can make a series huge.
 */
export class OperationNames {
  readonly #seen = new Set<string>();
  constructor(private readonly max: number) {}

  label(name: string | null | undefined): string {
    if (!name) return ANONYMOUS_OPERATION;
    if (name.length > MAX_OPERATION_NAME_LENGTH) return OVERSIZED_OPERATION;
    if (this.#seen.has(name)) return name;
    if (this.#seen.size >= this.max) return OTHER_OPERATION;
    this.#seen.add(name);
    return name;
  }
}

// Buckets in seconds: from sub-millisecond cache hits to the 30 s request timeout.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface Metrics {
  readonly registry: Registry;
  /**
   * The request step that times and counts operations, run by the service's one Apollo plugin of
   * request steps (src/common/graphql/request-steps.ts), last.
   */
  operationStep: RequestStep<BaseContext>;
  /**
   * Adds the HTTP hooks to `app` and serves /metrics on host:port while `app` is up (in a cluster
   * worker: hands its registry to the primary, which serves them all).
   */
  register(app: FastifyInstance, listen: { host: string; port: number }): void;
  /** Counts one answer (the onResponse hook of `register`; called directly for answers no hook sees). */
  observe(request: FastifyRequest, reply: FastifyReply): void;
}

type PoolReport = ReturnType<NonNullable<MetricsOptions['pools']>>[number];

/**
 * The PostgreSQL pools' gauges, read at each scrape: one series per pool (`pool`: primary,
 * replica-1, ...) when the database says which pools it has, else the one pool as `primary`.
 */
function registerPoolGauges(registry: Registry, options: Pick<MetricsOptions, 'pool' | 'pools'>): void {
  const pools = (): { name: string; counts: PoolCounts }[] => {
    const all = options.pools?.();
    if (all) return all.map((p) => ({ name: p.name, counts: p.counts }));
    const single = options.pool?.();
    return single ? [{ name: 'primary', counts: single }] : [];
  };
  const pool = (name: string, help: string, pick: (c: PoolCounts) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const p of pools()) this.set({ pool: p.name }, pick(p.counts));
      },
    });
  pool(
    'db_pool_connections_in_use',
    'PostgreSQL pool connections checked out (total - idle)',
    (c) => c.totalCount - c.idleCount,
  );
  pool('db_pool_connections_idle', 'PostgreSQL pool connections open and idle', (c) => c.idleCount);
  pool('db_pool_connections_total', 'PostgreSQL pool connections open', (c) => c.totalCount);
  pool(
    'db_pool_waiting_requests',
    'Queries waiting for a pool connection (all connections in use)',
    (c) => c.waitingCount,
  );
}

/** Reads served by each pool, and whether each pool serves reads (read replicas). */
function registerReadCounters(registry: Registry, read: () => PoolReport[]): void {
  const reported = new Map<string, number>();
  new Counter({
    name: 'db_reads_total',
    help: 'Reader statements (queries, REST GETs, subscription loads) served, by pool',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      for (const p of read()) {
        this.inc({ pool: p.name }, p.reads - (reported.get(p.name) ?? 0));
        reported.set(p.name, p.reads);
      }
    },
  });
  new Gauge({
    name: 'db_pool_up',
    help: '1 while the pool serves reads; 0 for a replica taken out (failed, or no longer a standby)',
    labelNames: ['pool', 'role'],
    registers: [registry],
    // Under WEB_CONCURRENCY the primary serves the workers' metrics merged: a state is the lowest of
    // theirs (0 when any worker has taken the pool out), not their sum.
    aggregator: 'min',
    collect() {
      for (const p of read()) this.set({ pool: p.name, role: p.role }, p.up ? 1 : 0);
    },
  });
}

/** The API-key cache's hit and miss counters, read at each scrape. */
function registerCacheCounters(registry: Registry, read: () => CacheCounts | undefined): void {
  // Counters read from the cache's own tallies (prom-client's counters have no "set"; a
  // collect() that adds the difference keeps them monotonic).
  const fromTally = (name: string, help: string, pick: (c: CacheCounts) => number) => {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const counts = read();
        if (!counts) return;
        const now = pick(counts);
        if (now > reported) this.inc(now - reported);
        reported = now;
      },
    });
  };
  fromTally('api_key_cache_hits_total', 'API-key authentications answered from the process cache', (c) => c.hits);
  fromTally(
    'api_key_cache_misses_total',
    'API-key authentications that read the database (not cached, or cache off while not listening)',
    (c) => c.misses,
  );
}

/**
 * The response cache's counters and gauges, read from its tallies at each scrape (a hit adds one
 * integer, no label lookup). Entries and bytes are the in-process store's (Redis reports its own).
 */
function registerResponseCacheMetrics(registry: Registry, read: () => ResponseCacheStats | undefined): void {
  const fromTally = (name: string, help: string, pick: (s: ResponseCacheStats) => number) => {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const stats = read();
        if (!stats) return;
        const now = pick(stats);
        if (now > reported) this.inc(now - reported);
        reported = now;
      },
    });
  };
  fromTally('response_cache_hits_total', 'GraphQL requests answered from the response cache', (s) => s.hits);
  fromTally(
    'response_cache_misses_total',
    'Cacheable GraphQL requests (no credentials) not found in the response cache',
    (s) => s.misses,
  );
  fromTally(
    'response_cache_bypasses_total',
    'Cacheable GraphQL requests that skipped the cache while it could not be trusted (Redis away, LISTEN down)',
    (s) => s.bypasses,
  );
  fromTally(
    'response_cache_invalidations_total',
    'Times this process dropped every entry: writes here or heard of, and resyncs after an outage',
    (s) => s.invalidations,
  );
  fromTally(
    'response_cache_invalidation_failures_total',
    'Mutations answered before their invalidation reached Redis (unreachable for longer than the wait)',
    (s) => s.invalidationFailures,
  );
  const gauge = (name: string, help: string, pick: (s: ResponseCacheStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const stats = read();
        if (stats) this.set(pick(stats));
      },
    });
  gauge('response_cache_entries', 'Answers held by the in-process response cache', (s) => s.entries);
  gauge(
    'response_cache_bytes',
    'Estimated bytes held by the in-process response cache (bounded by RESPONSE_CACHE_MAX_BYTES)',
    (s) => s.bytes,
  );
}

/** GET /metrics on its own HTTP server at host:port, started and closed with `app`. */
function serveMetrics(app: FastifyInstance, registry: Registry, listen: { host: string; port: number }): void {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        app.log.error({ err: error }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  // Started with the app (a port in use stops the start, as for the main port) and closed with it.
  app.addHook('onReady', async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        const address = server.address();
        app.log.info(
          {
            metrics: typeof address === 'object' && address ? `http://${listen.host}:${address.port}/metrics` : address,
          },
          'metrics listening',
        );
        resolve();
      });
    });
  });
  app.addHook('onClose', async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
}

/** The HTTP series: every answer's duration, the deprecated path's answers, the rate limit's refusals. */
function httpMetrics(registry: Registry) {
  return {
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status: time from receipt to the last byte of the response',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    deprecatedAnswers: new Counter({
      name: 'rest_deprecated_requests_total',
      help: 'Answers of the deprecated REST path GET /pets/{petId}, by status (the legacy calls left before the sunset)',
      labelNames: ['route', 'status_code'] as const,
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests refused by the rate limit (429 RATE_LIMITED), by route pattern',
      labelNames: ['route'] as const,
      registers: [registry],
    }),
  };
}

/** The GraphQL series: operations' durations and errors, and the subscriptions open. */
function graphqlMetrics(registry: Registry) {
  const series = {
    operationDuration: new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'GraphQL operations by operation name (bounded, see docs/operations.md) and type: time from receipt to response',
      labelNames: ['operation_name', 'operation_type'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    operationErrors: new Counter({
      name: 'graphql_operation_errors_total',
      help: 'Errors in GraphQL responses by operation name, type and error code (extensions.code)',
      labelNames: ['operation_name', 'operation_type', 'code'] as const,
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'graphql_subscriptions_open',
    help: 'GraphQL subscriptions open in this process',
    registers: [registry],
    collect() {
      this.set(openSubscriptionsSource?.() ?? 0);
    },
  });
  return series;
}

/**
 * The trusted list's series. Tallies kept by the trusted list, read at scrape time like the cache's
 * (the refusal path adds one integer, no label lookup). Labels are two closed sets: reason x transport.
 */
function registerTrustedDocumentMetrics(
  registry: Registry,
  read: NonNullable<MetricsOptions['trustedDocuments']>,
): void {
  const reported = new Map<string, number>();
  new Counter({
    name: 'graphql_trusted_documents_refused_total',
    help: 'Documents refused because they are not in the trusted list (TRUSTED_DOCUMENTS=enforce), by reason (full_document, unknown_hash) and transport (http, websocket)',
    labelNames: ['reason', 'transport'] as const,
    registers: [registry],
    collect() {
      const counts = read();
      if (!counts) return;
      for (const [key, now] of Object.entries(counts.refused)) {
        const [reason, transport] = key.split(':') as [string, string];
        const before = reported.get(key) ?? 0;
        // inc(0) creates the series, so every pair shows from the first scrape on.
        this.inc({ reason, transport }, Math.max(0, now - before));
        reported.set(key, now);
      }
    },
  });
  new Gauge({
    name: 'graphql_trusted_documents',
    help: 'Documents in the trusted list (as last read, at start or on SIGHUP)',
    registers: [registry],
    collect() {
      const counts = read();
      if (counts) this.set(counts.listed);
    },
  });
  const reloads = new Map<string, number>();
  new Counter({
    name: 'graphql_trusted_documents_reloads_total',
    help: 'Re-reads of the trusted list on SIGHUP, by result (ok, failed: the previous list stays)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const counts = read();
      if (!counts) return;
      for (const result of ['ok', 'failed'] as const) {
        const now = counts.reloads[result];
        this.inc({ result }, Math.max(0, now - (reloads.get(result) ?? 0)));
        reloads.set(result, now);
      }
    },
  });
}

/** The request step that times every operation and counts its errors, by bounded operation name. */
function operationsStep(
  { operationDuration, operationErrors }: ReturnType<typeof graphqlMetrics>,
  names: OperationNames,
): RequestStep<BaseContext> {
  return () => {
    const start = process.hrtime.bigint();
    return {
      willSendResponse(rc) {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const type = rc.operation?.operation ?? 'unknown';
        const name = rc.operation ? names.label(rc.operationName) : UNKNOWN_OPERATION;
        operationDuration.observe({ operation_name: name, operation_type: type }, seconds);
        const body = rc.response.body;
        const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
        for (const error of errors ?? []) {
          const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'UNKNOWN';
          operationErrors.inc({ operation_name: name, operation_type: type, code });
        }
      },
    };
  };
}

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { httpDuration, deprecatedAnswers, rateLimited } = httpMetrics(registry);
  const graphql = graphqlMetrics(registry);
  if (options.pool || options.pools) registerPoolGauges(registry, options);
  if (options.pools) registerReadCounters(registry, options.pools);
  if (options.apiKeyCache) registerCacheCounters(registry, options.apiKeyCache);
  if (options.responseCache) registerResponseCacheMetrics(registry, options.responseCache);
  if (options.trustedDocuments) registerTrustedDocumentMetrics(registry, options.trustedDocuments);
  const names = new OperationNames(options.maxOperationNames);

  const observe = (request: FastifyRequest, reply: FastifyReply): void => {
    // Unmatched requests (404s, and 405s of a known path with another method) have no pattern: one label for all.
    const route = request.routeOptions.url ?? '__unmatched';
    const status = reply.statusCode;
    httpDuration.observe({ method: request.method, route, status_code: status }, reply.elapsedTime / 1000);
    if (status === 429) rateLimited.inc({ route });
    if (route === options.deprecatedRoute) deprecatedAnswers.inc({ route, status_code: status });
  };

  return {
    registry,
    operationStep: operationsStep(graphql, names),
    observe,
    register(app, listen) {
      app.addHook('onResponse', (request, reply, done) => {
        observe(request, reply);
        done();
      });
      // A worker's metrics are served by its primary, summed with the other workers' (src/cluster.ts).
      if (cluster.isWorker) AggregatorRegistry.setRegistries([registry]);
      else serveMetrics(app, registry, listen);
    },
  };
}

export interface MetricsPluginOptions {
  metrics: Metrics;
  /** METRICS_HOST, METRICS_PORT: where /metrics is served (never on the app's own port). */
  listen: { host: string; port: number };
}

/**
 * fastify-plugin: the HTTP metrics are taken by an onResponse hook on every route of the app (and
 * its 404s), and the metrics server closes with the app (onClose).
 */
export const metricsPlugin = fp(
  async (app: FastifyInstance, { metrics, listen }: MetricsPluginOptions) => metrics.register(app, listen),
  { name: 'metrics' },
);
