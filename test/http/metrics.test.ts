/**
 * Prometheus metrics (README, "Operations"): a real server process with METRICS_PORT, known requests,
 * then /metrics scraped over HTTP and read with a Prometheus text-format parser.
 */
import { freePort } from '../helpers/server-process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getMetricsFromIterator, type PromMetrics } from 'prom2javascript';
import { adminKeyFor, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

const RATE_LIMIT_MAX = 20;

describe('Prometheus metrics on METRICS_PORT', () => {
  let server: ServerProcess;
  let metricsUrl: string;
  let auth: Record<string, string>;
  let cleanup: () => Promise<void> = async () => undefined;
  let serverEnv: Record<string, string>;

  const gql = async (query: string, variables?: Record<string, unknown>) =>
    fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ query, variables }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data?: unknown; errors?: unknown[] } }));

  /** Scrapes /metrics and parses the Prometheus text format (prom2javascript). */
  const scrape = async (): Promise<PromMetrics> => {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    // prom-client writes a gauge without samples yet (the event loop's lag right after a reset) as
    // `Nan`, which Prometheus reads (its floats ignore case) and prom2javascript refuses: those
    // samples are left out here; no assertion reads them.
    const lines = (await response.text()).split('\n').filter((line) => !/ nan$/i.test(line));
    return getMetricsFromIterator(lines[Symbol.iterator]());
  };

  type Sample = { labels: Record<string, string>; value?: number; count?: number };
  const family = (metrics: PromMetrics, name: string) => metrics[name] as { type: string; data: Sample[] } | undefined;
  /** The sum of the values (histograms: of the counts) of the samples whose labels include `labels`. */
  const total = (metrics: PromMetrics, name: string, labels: Record<string, string> = {}) =>
    (family(metrics, name)?.data ?? [])
      .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
      .reduce((sum, m) => sum + Number(m.count ?? m.value), 0);

  beforeAll(async () => {
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const env: Record<string, string> = {
      METRICS_PORT: String(metricsPort),
      METRICS_MAX_OPERATION_NAMES: '2',
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
    };
    if (usingPostgres()) {
      const database = await createPostgresDatabase();
      env.DATABASE_URL = database.url;
      cleanup = database.drop;
    } else {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-metrics-'));
      env.PGLITE_DATA_DIR = dataDir;
      cleanup = async () => fs.rmSync(dataDir, { recursive: true, force: true });
    }
    auth = await adminKeyFor(env);
    serverEnv = env;
    server = await startServerProcess(env);
  });

  afterAll(async () => {
    await server?.stop();
    await cleanup();
  });

  it('counts what was sent, by route pattern, operation name (bounded) and error code, and only on its own port', async () => {
    // GraphQL with a key (its own rate-limit counter): 10 operations.
    for (let i = 0; i < 3; i++)
      expect((await gql('query PetsA { pets(first: 1) { totalCount } }')).body.errors).toBeUndefined();
    for (let i = 0; i < 2; i++)
      expect(
        (await gql('query PetsB($n: Int) { pets(first: $n) { totalCount } }', { n: 1 })).body.errors,
      ).toBeUndefined();
    // PetsB again with a variable of the wrong type: an error under its own name.
    expect((await gql('query PetsB($n: Int) { pets(first: $n) { totalCount } }', { n: 'x' })).body.errors).toHaveLength(
      1,
    );
    // Past METRICS_MAX_OPERATION_NAMES=2 distinct names: folded into __other.
    await gql('query Extra1 { __typename }');
    await gql('query Extra2 { __typename }');
    await gql('{ __typename }');
    // Refused by validation: no operation was resolved.
    expect((await gql('query Broken { nope }')).body.errors).toHaveLength(1);
    // Refused by the scope check, a request step before the metrics' own (anonymous, so on the
    // address's rate-limit counter, which the REST requests below also use): still timed and counted.
    const refused = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation Refused { deletePet(id: "1") { id } }' }),
    }).then(async (r) => (await r.json()) as { errors?: { extensions?: { code?: string } }[] });
    expect(refused.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    // Nothing on the public port.
    expect((await fetch(`${server.url}/metrics`, { headers: auth })).status).toBe(404);
    await fetch(`${server.url}/no-such-path/123`, { headers: auth });

    // The deprecated REST path, anonymous (the address's counter): 2 more than the limit.
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT_MAX + 2; i++) statuses.push((await fetch(`${server.url}/pets/999999`)).status);
    // (Which requests of this test share the address's counter depends on where the limit runs; what
    // matters here is that the metrics count exactly the answers seen.)
    const n404 = statuses.filter((s) => s === 404).length;
    const n429 = statuses.filter((s) => s === 429).length;
    expect(n404 + n429).toBe(RATE_LIMIT_MAX + 2);
    expect(n429).toBeGreaterThanOrEqual(2);

    const m = await scrape();
    // HTTP durations by method, route pattern and status; never the raw URL.
    expect(total(m, 'http_request_duration_seconds', { method: 'POST', route: '/graphql' })).toBe(11);
    expect(
      total(m, 'http_request_duration_seconds', { method: 'GET', route: '/pets/:petId', status_code: '404' }),
    ).toBe(n404);
    expect(
      total(m, 'http_request_duration_seconds', { method: 'GET', route: '/pets/:petId', status_code: '429' }),
    ).toBe(n429);
    const routes = new Set(family(m, 'http_request_duration_seconds')!.data.map((s) => s.labels!.route));
    expect([...routes].filter((r) => /999999|no-such-path|metrics/.test(r))).toEqual([]);
    expect(routes).toContain('__unmatched');
    expect(family(m, 'http_request_duration_seconds')!.type).toBe('histogram');

    // GraphQL operations by name (bounded) and type.
    const ops = (name: string, type = 'query') =>
      total(m, 'graphql_operation_duration_seconds', { operation_name: name, operation_type: type });
    expect(ops('PetsA')).toBe(3);
    expect(ops('PetsB')).toBe(3);
    expect(ops('__other')).toBe(2);
    expect(ops('__other', 'mutation')).toBe(1);
    expect(ops('__anonymous')).toBe(1);
    expect(ops('__unknown', 'unknown')).toBe(1);
    const names = new Set(family(m, 'graphql_operation_duration_seconds')!.data.map((s) => s.labels!.operation_name));
    expect([...names].sort()).toEqual(['PetsA', 'PetsB', '__anonymous', '__other', '__unknown']);
    expect(total(m, 'graphql_operation_errors_total', { operation_name: 'PetsB', code: 'VALIDATION_FAILED' })).toBe(1);
    expect(total(m, 'graphql_operation_errors_total', { operation_name: '__unknown', code: 'VALIDATION_FAILED' })).toBe(
      1,
    );
    expect(
      total(m, 'graphql_operation_errors_total', {
        operation_name: '__other',
        operation_type: 'mutation',
        code: 'UNAUTHENTICATED',
      }),
    ).toBe(1);
    expect(total(m, 'graphql_operation_errors_total')).toBe(3);

    // The deprecated path's answers and the rate limit's refusals.
    expect(total(m, 'rest_deprecated_requests_total', { route: '/pets/:petId', status_code: '404' })).toBe(n404);
    expect(total(m, 'rest_deprecated_requests_total', { route: '/pets/:petId', status_code: '429' })).toBe(n429);
    expect(total(m, 'http_rate_limited_total', { route: '/pets/:petId' })).toBe(n429);

    // The key was read from the database on first use, then answered from the cache.
    const misses = total(m, 'api_key_cache_misses_total');
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(misses).toBeLessThanOrEqual(2);
    expect(total(m, 'api_key_cache_hits_total')).toBeGreaterThanOrEqual(9);

    // Open subscriptions (none), Node's process metrics.
    expect(family(m, 'graphql_subscriptions_open')?.type).toBe('gauge');
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_gc_duration_seconds',
      'process_cpu_seconds_total',
    ]) {
      expect(family(m, name)).toBeDefined();
    }

    // The pool: PostgreSQL's connections; PGlite has one in-process session and no pool gauges.
    if (usingPostgres()) {
      expect(total(m, 'db_pool_connections_total')).toBeGreaterThanOrEqual(1);
      expect(total(m, 'db_pool_waiting_requests')).toBe(0);
      expect(family(m, 'db_pool_connections_in_use')).toBeDefined();
      expect(family(m, 'db_pool_connections_idle')).toBeDefined();
    } else {
      expect(family(m, 'db_pool_connections_total')).toBeUndefined();
    }

    // A second scrape: counters only move by what was sent in between (one more PetsA).
    await gql('query PetsA { pets(first: 1) { totalCount } }');
    const again = await scrape();
    expect(total(again, 'graphql_operation_duration_seconds', { operation_name: 'PetsA' })).toBe(4);
    expect(total(again, 'http_request_duration_seconds', { method: 'POST', route: '/graphql' })).toBe(12);
    expect(total(again, 'api_key_cache_misses_total')).toBe(misses);

    // No OTEL_* variables: no tracing, so no trace ids in the request log lines.
    expect(server.output.some((l) => l.includes('"reqId"'))).toBe(true);
    expect(server.output.some((l) => l.includes('trace_id'))).toBe(false);
  });

  // The rate limit's look at the cache before the authentication was counted as well: every request
  // with a key was two hits, and its first use two misses for one read of the database.
  it('counts one API-key cache lookup per request with a key: a hit, or a miss that read the database', async () => {
    const before = await scrape();
    for (let i = 0; i < 5; i++) expect((await gql('{ __typename }')).status).toBe(200);
    const after = await scrape();
    expect(total(after, 'api_key_cache_hits_total') - total(before, 'api_key_cache_hits_total')).toBe(5);
    expect(total(after, 'api_key_cache_misses_total')).toBe(total(before, 'api_key_cache_misses_total'));
    // A key this process has not seen: one miss (its one read), then a hit.
    const { authorization } = await adminKeyFor(serverEnv);
    for (let i = 0; i < 2; i++)
      expect(
        (
          await fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization },
            body: JSON.stringify({ query: '{ __typename }' }),
          })
        ).status,
      ).toBe(200);
    const last = await scrape();
    expect(total(last, 'api_key_cache_misses_total') - total(after, 'api_key_cache_misses_total')).toBe(1);
    expect(total(last, 'api_key_cache_hits_total') - total(after, 'api_key_cache_hits_total')).toBe(1);
  });

  it("counts and logs the router's own refusals (a URL that does not decode, an over-long id) like every answer", async () => {
    const before = await scrape();
    const unmatched = { method: 'GET', route: '__unmatched', status_code: '400' };
    const requestIds = ['router-refusal-bad-url', 'router-refusal-long-param'];
    for (const [i, url] of [`/pets/%E0%A4%A`, `/pets/${'1'.repeat(600)}`].entries()) {
      const response = await fetch(`${server.url}${url}`, { headers: { 'x-request-id': requestIds[i]! } });
      expect(response.status).toBe(400);
    }
    const after = await scrape();
    expect(
      total(after, 'http_request_duration_seconds', unmatched) -
        total(before, 'http_request_duration_seconds', unmatched),
    ).toBe(2);
    // And one line each, with its request id and status.
    const deadline = Date.now() + 5_000;
    const lines = () => server.output.filter((l) => requestIds.some((id) => l.includes(`"reqId":"${id}"`)));
    while (lines().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(lines().map((l) => (JSON.parse(l) as { status: number }).status)).toEqual([400, 400]);
  });

  it('answers 404 on the metrics port for anything but GET /metrics', async () => {
    expect((await fetch(metricsUrl.replace('/metrics', '/graphql'))).status).toBe(404);
  });
});

describe('metrics off', () => {
  it('refuses METRICS_PORT equal to PORT at start', async () => {
    await expect(
      startServerProcess({ METRICS_PORT: '4000', PORT: '4000', PGLITE_DATA_DIR: '/nonexistent' }),
    ).rejects.toThrow(/METRICS_PORT/);
  });
});
