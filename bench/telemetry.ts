/**
 * `npm run bench -- --telemetry [--quick] [--rounds N] [--duration S] [--connections N]
 * [--workloads W1,W2] [--variants metrics,tracing,both]`: what
 * metrics and tracing cost (issue 14), on PostgreSQL, W1 and W2.
 *
 * Four gateway processes (`node dist/src/main.js`, the agent preloaded as for the main benchmark)
 * on one seeded database, differing only in their environment:
 *   base     no METRICS_PORT, no OTEL_*          (what the other benchmarks measure)
 *   metrics  METRICS_PORT set (scraped every 2 s, as Prometheus would, more often than usual)
 *   tracing  OTEL_EXPORTER_OTLP_ENDPOINT at a local sink, OTEL_TRACES_SAMPLER=always_on (100 %),
 *            the default OTLP/HTTP protobuf encoding, the default batch span processor
 *   both     metrics and tracing
 * Runs are interleaved (each round visits every variant, in a rotated order) at a fixed request rate
 * (--rate, default 500 req/s for W1 and 100 for W2, below what one process serves on a busy 2-core
 * machine), and the figure is the server's CPU time per request (user + system, from the agent). The
 * overhead of a variant is its CPU-ms per request over the same round's base, minus one, median over
 * rounds. Goals: metrics < 5 % of W1's CPU
 * per request; tracing at 100 % < 25 %.
 *
 * Kept apart from run.ts on purpose (its own file, its own results file
 * bench/results/telemetry-latest.json): only the option parsing in run.ts hands over to it.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config';
import { runLoad } from './load';
import { createApiKey, DATA, seedPostgres, type PostgresDataSet } from './seed';
import { startTarget, type Target } from './targets';
import type { WorkloadId } from './workloads';

type Variant = 'base' | 'metrics' | 'tracing' | 'both';
const ALL_VARIANTS: Variant[] = ['base', 'metrics', 'tracing', 'both'];
const ALL_WORKLOADS: WorkloadId[] = ['W1', 'W2'];

interface Run {
  variant: Variant;
  workload: WorkloadId;
  round: number;
  requests: number;
  rps: number;
  p99: number;
  cpuMsPerReq: number;
  errors: number;
}

const log = (line: string) => process.stderr.write(`[bench:telemetry] ${line}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** An OTLP/HTTP sink: reads and drops every export, counting them (the collector's side is not measured). */
async function startSink(): Promise<{
  endpoint: string;
  exports: () => number;
  bytes: () => number;
  close(): Promise<void>;
}> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function runTelemetryBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      workloads: { type: 'string' },
      variants: { type: 'string' },
      rate: { type: 'string' },
    },
    strict: true,
  });
  const WORKLOADS = (values.workloads?.split(',') ?? ALL_WORKLOADS) as WorkloadId[];
  const VARIANTS = (values.variants?.split(',') ?? ALL_VARIANTS) as Variant[];
  if (!VARIANTS.includes('base')) VARIANTS.unshift('base');
  const quick = values.quick ?? false;
  const rounds = Number(values.rounds ?? (quick ? 1 : 3));
  const durationSec = Number(values.duration ?? (quick ? 2 : 10));
  const warmupSec = Number(values.warmup ?? (quick ? 0.5 : 2));
  const connections = Number(values.connections ?? 32);
  // A fixed request rate per workload (0: as fast as the target answers). At a fixed rate every
  // variant serves the same requests per second, so per-request CPU is not skewed by how many
  // requests share an event-loop turn, which on a shared machine varies from run to run.
  const rateArg = values.rate === undefined ? undefined : Number(values.rate);
  const rateFor = (w: WorkloadId) => rateArg ?? (w === 'W1' ? 500 : 100);
  const adminUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const started = Date.now();

  let pg: PostgresDataSet | null = null;
  const sink = await startSink();
  const targets = new Map<Variant, Target>();
  const scrapers: NodeJS.Timeout[] = [];
  const runs: Run[] = [];
  try {
    log(`seeding PostgreSQL (${DATA.pets} pets)`);
    pg = await seedPostgres(adminUrl);
    const dbEnv = { DATABASE_URL: pg.url };
    const key = createApiKey(dbEnv);
    const headers: Record<string, string> = key.key ? { authorization: `Bearer ${key.key}` } : {};
    const common = { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000', DB_POOL_SIZE: '10' };
    const tracingEnv = {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_SERVICE_NAME: 'petstore-bench',
    };
    for (const variant of VARIANTS) {
      const env: Record<string, string> = { ...common };
      if (variant === 'metrics' || variant === 'both') env.METRICS_PORT = String(await freePort());
      if (variant === 'tracing' || variant === 'both') Object.assign(env, tracingEnv);
      const target = await startTarget('T3', 'postgres', dbEnv, env);
      targets.set(variant, target);
      if (env.METRICS_PORT) {
        const url = `http://127.0.0.1:${env.METRICS_PORT}/metrics`;
        const text = await (await fetch(url)).text();
        if (!text.includes('http_request_duration_seconds')) throw new Error(`${variant}: no metrics at ${url}`);
        scrapers.push(
          setInterval(
            () =>
              void fetch(url)
                .then((r) => r.text())
                .catch(() => undefined),
            2_000,
          ),
        );
      }
      log(`${variant}: up (${target.url})`);
    }

    for (let round = 1; round <= rounds; round++) {
      for (const workload of WORKLOADS) {
        const order = VARIANTS.map(
          (_, i) => VARIANTS[(i + round - 1 + WORKLOADS.indexOf(workload)) % VARIANTS.length]!,
        );
        for (const variant of order) {
          const target = targets.get(variant)!;
          await runLoad({ url: target.url, workload, data: DATA, connections, durationSec: warmupSec, headers });
          const before = await target.stats();
          const rate = rateFor(workload);
          const r = await runLoad({
            url: target.url,
            workload,
            data: DATA,
            connections,
            durationSec,
            headers,
            ...(rate > 0 ? { overallRate: rate } : {}),
          });
          const after = await target.stats();
          const cpuMsPerReq = (after.cpuMicros - before.cpuMicros) / 1000 / Math.max(1, r.ok);
          runs.push({
            variant,
            workload,
            round,
            requests: r.ok,
            rps: r.rps,
            p99: r.p99,
            cpuMsPerReq,
            errors: r.non2xx + r.errors,
          });
          log(
            `round ${round} ${workload} ${variant}: ${r.rps.toFixed(0)} req/s, ${cpuMsPerReq.toFixed(3)} CPU-ms/req, p99 ${r.p99.toFixed(1)} ms`,
          );
        }
      }
    }
  } finally {
    scrapers.forEach(clearInterval);
    await Promise.all([...targets.values()].map((t) => t.stop()));
    await sink.close();
    await pg?.drop().catch((e: Error) => log(`could not drop the bench database: ${e.message}`));
  }

  // The overhead is paired: each round's variant against the same round's base (the neighbours'
  // load changes from one round to the next), median over rounds.
  const rows = WORKLOADS.flatMap((workload) => {
    const baseOf = (round: number) =>
      runs.find((r) => r.workload === workload && r.variant === 'base' && r.round === round)!.cpuMsPerReq;
    return VARIANTS.map((variant) => {
      const mine = runs.filter((r) => r.workload === workload && r.variant === variant);
      return {
        workload,
        variant,
        rps: median(mine.map((r) => r.rps)),
        p99: median(mine.map((r) => r.p99)),
        cpuMsPerReq: median(mine.map((r) => r.cpuMsPerReq)),
        minCpuMsPerReq: Math.min(...mine.map((r) => r.cpuMsPerReq)),
        overheadPct: median(mine.map((r) => (r.cpuMsPerReq / baseOf(r.round) - 1) * 100)),
        errors: mine.reduce((s, r) => s + r.errors, 0),
      };
    });
  });
  const overhead = (w: WorkloadId, v: Variant) => rows.find((r) => r.workload === w && r.variant === v)?.overheadPct;
  const goal = (w: WorkloadId, v: Variant, limit: number | null) => {
    const value = overhead(w, v);
    return value === undefined
      ? []
      : [
          {
            goal: `${v} on, ${w} CPU per request`,
            value,
            threshold: limit === null ? '(report)' : `< ${limit} %`,
            met: limit === null ? null : value < limit,
          },
        ];
  };
  const goals = [
    ...goal('W1', 'metrics', 5),
    ...goal('W1', 'tracing', 25),
    ...goal('W2', 'metrics', null),
    ...goal('W2', 'tracing', null),
  ];
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadavg: os.loadavg(), node: process.version },
    rounds,
    durationSec,
    connections,
    rates: Object.fromEntries(WORKLOADS.map((w) => [w, rateFor(w)])),
    sink: { exports: sink.exports(), bytes: sink.bytes() },
    rows,
    goals,
    runs,
    totalSec: (Date.now() - started) / 1000,
  };
  const dir = path.join(projectRoot, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'telemetry-latest.json'), JSON.stringify(results, null, 2) + '\n');
  const lines = [
    `Telemetry cost on PostgreSQL, ${rounds} interleaved round(s) of ${durationSec} s at ${connections} connections, ` +
      `${WORKLOADS.map((w) => `${w} at ${rateFor(w) || 'full'} req/s`).join(', ')} (server CPU-ms per request: median and best round; ` +
      `vs base: median over rounds of the variant against the same round's base):`,
    '',
    '| workload | variant | req/s | p99 ms | CPU-ms/req | best round | vs base |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.workload} | ${r.variant} | ${r.rps.toFixed(0)} | ${r.p99.toFixed(1)} | ${r.cpuMsPerReq.toFixed(3)} | ${r.minCpuMsPerReq.toFixed(3)} | ${r.variant === 'base' ? '–' : `${r.overheadPct >= 0 ? '+' : ''}${r.overheadPct.toFixed(1)} %`}${r.errors ? ` (${r.errors} errors)` : ''} |`,
    ),
    '',
    ...goals.map(
      (g) =>
        `- ${g.goal}: ${g.value >= 0 ? '+' : ''}${g.value.toFixed(1)} % (goal ${g.threshold})${g.met === null ? '' : g.met ? ' met' : ' NOT met'}`,
    ),
    `- OTLP sink received ${sink.exports()} exports, ${(sink.bytes() / 1e6).toFixed(1)} MB; load average at the end ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (${os.cpus().length} cores, shared)`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  log('wrote bench/results/telemetry-latest.json');
}
