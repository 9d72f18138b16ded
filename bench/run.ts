/**
 * `npm run bench [-- --quick] [options]`: the benchmark of issue 6 (README, "Benchmarks").
 *
 * Seeds one data set (seed.ts) into a fresh PostgreSQL database and a fresh PGlite data directory,
 * starts T0, T1 and T3 on each and T2 (PostGraphile, peer.ts) on PostgreSQL (targets.ts), checks that
 * every target answers every workload with the reference bytes (T3's answer, which must hold no
 * error; T2 row for row, its schema being its own), counts SQL statements per request in a separate
 * untimed pass, then drives the targets with autocannon in interleaved rounds and reports medians.
 * A timed run with any non-2xx, GraphQL-error or socket-error answer is refused: it is listed, never
 * reported as throughput. Writes bench/results/latest.json and prints a markdown table. Not a test: nothing here
 * runs in `npm test` or CI.
 *
 * Options:
 *   --quick            smoke run: 1 round of 1 s per target and workload (about 45-60 s in all)
 *   --rounds N         rounds (default 3)        --duration S   seconds per timed run (default 10)
 *   --warmup S         warm-up before each run   --connections N  (default 32)
 *   --db LIST          postgres,pglite (default both)
 *   --targets LIST     e.g. T3 (default T0,T1,T2,T3; goals need all; T2 runs on PostgreSQL only)
 *   --workloads LIST   e.g. W1,W2 (default all)
 *   --soak [MIN]       also run W2 on T3 for MIN minutes (default 5) and report RSS growth
 *   --subscriptions    run the subscriptions benchmark (bench/subscriptions.ts) instead
 *   --telemetry        instead: the cost of metrics and tracing, W1 and W2 (bench/telemetry.ts)
 * Environment: BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test),
 *   BENCH_API_KEY (otherwise a key is created with `npm run apikey` when the build has API keys).
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config';
import { percentile, runLoad, type LoadResult } from './load';
import { checkOversell, snapshotW4 } from './oversell';
import { asGatewayAnswer, ensurePeer, PEER_PG_MODULE, peerRequestFor } from './peer';
import { createApiKey, DATA, seedPglite, seedPostgres, type PostgresDataSet } from './seed';
import { subscriptionsMain } from './subscriptions';
import { startTarget, TARGETS, type DbKind, type Target, type TargetId } from './targets';
import { runTelemetryBench } from './telemetry';
import { graphqlBody, requestFor, W2_QUERY, W3_QUERY, WORKLOADS, type RequestSpec, type WorkloadId } from './workloads';

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  quick: boolean;
  rounds: number;
  durationSec: number;
  warmupSec: number;
  connections: number;
  dbs: DbKind[];
  targets: TargetId[];
  workloads: WorkloadId[];
  soakMin: number;
  countRequests: number;
  halfRate: boolean;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      db: { type: 'string' },
      targets: { type: 'string' },
      workloads: { type: 'string' },
      soak: { type: 'string' },
    },
    allowPositionals: false,
    strict: true,
    // `--soak` alone means 5 minutes
    args: process.argv
      .slice(2)
      .flatMap((a, i, all) => (a === '--soak' && (all[i + 1] ?? '--').startsWith('--') ? [a, '5'] : [a])),
  });
  const quick = values.quick ?? false;
  const num = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v));
  const dbs = (values.db ?? 'postgres,pglite').split(',').map((s) => s.trim()) as DbKind[];
  for (const d of dbs) if (d !== 'postgres' && d !== 'pglite') throw new Error(`--db: unknown database "${d}"`);
  const list = (v: string | undefined) => (v ? v.split(',').map((x) => x.trim()) : undefined);
  const targets = (list(values.targets) ?? TARGETS.map((t) => t.id)) as TargetId[];
  if (!targets.includes('T3')) throw new Error('--targets: T3 is the reference and must be included');
  const workloads = (list(values.workloads) ?? WORKLOADS.map((w) => w.id)) as WorkloadId[];
  return {
    quick,
    targets,
    workloads,
    rounds: num(values.rounds, quick ? 1 : 3),
    durationSec: num(values.duration, quick ? 1 : 10),
    warmupSec: num(values.warmup, quick ? 0.25 : 3),
    connections: num(values.connections, 32),
    dbs,
    soakMin: num(values.soak, 0),
    countRequests: quick ? 5 : 50,
    halfRate: !quick,
  };
}

// ---------------------------------------------------------------------------------------------
// Records

interface RunRecord {
  db: DbKind;
  workload: WorkloadId;
  target: TargetId;
  round: number;
  kind: 'peak' | 'half-rate';
  rate?: number;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** 2xx answers during the warm-up before this run (W4: orders placed there too). */
  warmupOk: number;
  cpuMsPerReq: number;
  peakRssMb: number;
  /** Statements per request seen during the timed run (cross-check of the counting pass). */
  sqlPerReqInRun: number;
}

interface Verification {
  db: DbKind;
  workload: WorkloadId;
  available: boolean;
  reason?: string;
  /** Targets whose answers matched the reference (and so were timed). */
  matched: TargetId[];
  mismatches: { target: TargetId; detail: string }[];
  samples: number;
}

interface SqlCount {
  db: DbKind;
  workload: WorkloadId;
  target: TargetId;
  perRequest: number;
  /** W2/W3: statements per request for other page sizes. */
  byPageSize?: Record<string, number>;
}

interface Summary {
  db: DbKind;
  workload: WorkloadId;
  target: TargetId;
  rounds: number;
  rps: number;
  p50: number;
  p99: number;
  sqlPerReq: number | null;
  cpuMsPerReq: number;
  peakRssMb: number;
  non2xx: number;
  errors: number;
  /** Timed runs refused because some answers failed (not in the medians). */
  refusedRuns: number;
}

interface Goal {
  goal: string;
  value: number | null;
  threshold: string;
  met: boolean | null;
  note?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Verification and counting

const isPeer = (target: Pick<Target, 'id'>) => TARGETS.find((t) => t.id === target.id)?.peer === true;

/** The i-th request of a workload as this target is asked it, or null when the target does not offer it. */
function requestOf(target: Pick<Target, 'id'>, workload: WorkloadId, i: number): RequestSpec | null {
  return isPeer(target) ? peerRequestFor(workload, i, DATA) : requestFor(workload, i, DATA);
}

async function send(target: Target, spec: RequestSpec, headers: Record<string, string>) {
  const res = await fetch(target.url + spec.path, {
    method: spec.method,
    headers: spec.body ? { ...headers, 'content-type': 'application/json' } : headers,
    body: spec.body,
  });
  return { status: res.status, body: await res.text() };
}

const SAMPLE_PETS = [1, 2, 3, 4, 10, 110, 500, 999, 1000];

/** Indexes of the requests compared before timing. */
function samplesFor(workload: WorkloadId): number[] {
  if (workload === 'W1' || workload === 'W5') return SAMPLE_PETS.map((id) => id - 1);
  return [0];
}

/**
 * The JSON text of an answer: one trailing newline (Apollo ends its bodies with one, mercurius does
 * not) is not part of it. Ids of created orders (W4) differ between targets; everything else must be
 * the same bytes.
 */
const normalise = (workload: WorkloadId, body: string) => {
  const json = body.endsWith('\n') ? body.slice(0, -1) : body;
  return workload === 'W4' ? json.replace(/"id":"\d+"/g, '"id":"#"') : json;
};

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const around = (x: string) => JSON.stringify(x.slice(Math.max(0, i - 40), i + 60));
  return `at byte ${i} of ${a.length}/${b.length}: T3 ${around(a)} vs ${around(b)}`;
}

/** Why T3 cannot serve the workload on this build, or null when it answered properly. */
function unavailableReason(workload: WorkloadId, answer: { status: number; body: string }): string | null {
  if (workload === 'W4' && /Cannot query field \\?"placeOrder\\?"/.test(answer.body)) {
    return 'not available on this build: placeOrder is not in the schema (issue 3)';
  }
  // Pet 1 exists, so a 404 means that no route serves the path.
  if (workload === 'W5' && answer.status === 404) {
    return 'not available on this build: no GET /pets/{petId} route (issue 4)';
  }
  if (answer.status !== 200) return `T3 answered HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
  if (workload !== 'W5' && answer.body.includes('"errors"'))
    return `T3 answered an error: ${answer.body.slice(0, 300)}`;
  return null;
}

async function verify(
  db: DbKind,
  workload: WorkloadId,
  targets: Target[],
  headers: Record<string, string>,
): Promise<Verification> {
  const samples = samplesFor(workload);
  const t3 = targets.find((t) => t.id === 'T3')!;
  const reference: string[] = [];
  for (const i of samples) {
    const answer = await send(t3, requestFor(workload, i, DATA), headers);
    const reason = unavailableReason(workload, answer);
    if (reason) return { db, workload, available: false, reason, matched: [], mismatches: [], samples: samples.length };
    reference.push(normalise(workload, answer.body));
  }
  const matched: TargetId[] = ['T3'];
  const mismatches: Verification['mismatches'] = [];
  for (const target of targets.filter((t) => t.id !== 'T3' && requestOf(t, workload, 0))) {
    let detail: string | null = null;
    for (const [n, i] of samples.entries()) {
      const answer = await send(target, requestOf(target, workload, i)!, headers);
      let body = normalise(workload, answer.body);
      let expected = reference[n]!;
      // The peer's schema is its own: the same rows in the same order, under its field names.
      if (isPeer(target) && answer.status === 200)
        [body, expected] = [asGatewayAnswer(body), asGatewayAnswer(expected)];
      if (answer.status !== 200) detail = `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
      else if (body.includes('"errors":')) detail = `answered an error: ${body.slice(0, 300)}`;
      else if (body !== expected) detail = firstDifference(expected, body);
      if (detail) break;
    }
    if (detail) mismatches.push({ target: target.id, detail });
    else matched.push(target.id);
  }
  return { db, workload, available: true, matched, mismatches, samples: samples.length };
}

async function countStatements(target: Target, specs: RequestSpec[], headers: Record<string, string>): Promise<number> {
  const before = await target.stats();
  for (const spec of specs) await send(target, spec, headers);
  const after = await target.stats();
  return (after.statements - before.statements) / specs.length;
}

async function countPass(
  db: DbKind,
  workload: WorkloadId,
  target: Target,
  n: number,
  headers: Record<string, string>,
): Promise<SqlCount> {
  const specs = Array.from({ length: n }, (_, i) => requestOf(target, workload, i)!);
  const record: SqlCount = {
    db,
    workload,
    target: target.id,
    perRequest: await countStatements(target, specs, headers),
  };
  const query = isPeer(target) ? null : workload === 'W2' ? W2_QUERY : workload === 'W3' ? W3_QUERY : null;
  if (query) {
    record.byPageSize = {};
    for (const first of [5, 10, 50, 100]) {
      const spec: RequestSpec = { method: 'POST', path: '/graphql', body: graphqlBody(query, { first }) };
      record.byPageSize[String(first)] = await countStatements(target, Array(Math.min(n, 10)).fill(spec), headers);
    }
  }
  return record;
}

// ---------------------------------------------------------------------------------------------
// Timed runs

async function measure(
  target: Target,
  db: DbKind,
  workload: WorkloadId,
  round: number,
  o: Options,
  headers: Record<string, string>,
  overallRate?: number,
): Promise<RunRecord> {
  // The issue fixes W4 at 32 connections; the read workloads follow --connections.
  const connections = workload === 'W4' ? 32 : o.connections;
  const base = {
    url: target.url,
    workload,
    data: DATA,
    connections,
    headers,
    overallRate,
    request: (i: number) => requestOf(target, workload, i)!,
  };
  const warmup = o.warmupSec > 0 ? await runLoad({ ...base, durationSec: o.warmupSec }) : null;
  target.resetPeak();
  const before = await target.stats();
  const r: LoadResult = await runLoad({ ...base, durationSec: o.durationSec });
  const after = await target.stats();
  const record: RunRecord = {
    db,
    workload,
    target: target.id,
    round,
    kind: overallRate ? 'half-rate' : 'peak',
    ...(overallRate ? { rate: Math.round(overallRate) } : {}),
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    requests: r.requests,
    non2xx: r.non2xx,
    errors: r.errors,
    warmupOk: warmup?.ok ?? 0,
    cpuMsPerReq: (after.cpuMicros - before.cpuMicros) / 1000 / Math.max(1, r.requests),
    peakRssMb: target.peakRssMb(),
    sqlPerReqInRun: (after.statements - before.statements) / Math.max(1, r.requests),
  };
  log(
    `${db} ${workload} ${target.id}${overallRate ? ` @${Math.round(overallRate)}/s` : ''} round ${round}: ` +
      `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
      `${record.cpuMsPerReq.toFixed(3)} CPU-ms/req, ${record.peakRssMb.toFixed(0)} MiB` +
      (r.non2xx || r.errors
        ? `, REFUSED: ${r.non2xx} non-2xx or GraphQL-error answers, ${r.errors} socket errors`
        : ''),
  );
  return record;
}

const rotate = <T>(xs: T[], by: number) => xs.map((_, i) => xs[(i + by) % xs.length]!);

// ---------------------------------------------------------------------------------------------
// One database: start the targets, verify, count, time

interface DbOutcome {
  verifications: Verification[];
  sql: SqlCount[];
  runs: RunRecord[];
  oversell?: Record<string, unknown>;
  soak?: Record<string, unknown>;
  apiKeyNote: string;
}

async function measureDb(
  db: DbKind,
  dbEnvFor: (t: TargetId) => Record<string, string>,
  apiKey: { key: string | null; note: string },
  o: Options,
  pgUrl?: string,
): Promise<DbOutcome> {
  const outcome: DbOutcome = { verifications: [], sql: [], runs: [], apiKeyNote: apiKey.note };
  const headers: Record<string, string> = apiKey.key ? { authorization: `Bearer ${apiKey.key}` } : {};
  // Per-key rate limits (issue 5) would measure the limiter, not the gateway: raised for the bench.
  const extraEnv = { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' };
  log(`${db}: starting ${o.targets.join(', ')}`);
  const targets: Target[] = [];
  try {
    const started = Date.now();
    // The peer reads PostgreSQL only (PostGraphile has no PGlite mode in this setup).
    const chosen = TARGETS.filter((t) => o.targets.includes(t.id) && (db === 'postgres' || !t.peer));
    const peerNode = chosen.some((t) => t.peer) ? ensurePeer(log) : process.execPath;
    const peerEnv = { BENCH_PG_MODULE: PEER_PG_MODULE, GRAPHILE_ENV: 'production' };
    const results = await Promise.allSettled(
      chosen.map((t) =>
        t.peer
          ? startTarget(t.id, db, dbEnvFor(t.id), peerEnv, peerNode)
          : startTarget(t.id, db, dbEnvFor(t.id), t.id === 'T3' ? extraEnv : {}),
      ),
    );
    for (const r of results) if (r.status === 'fulfilled') targets.push(r.value);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    log(`${db}: targets up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const workloads = WORKLOADS.filter((w) => o.workloads.includes(w.id) && (db === 'postgres' || w.onPglite));
    const w4Before =
      db === 'postgres' && pgUrl && workloads.some((w) => w.id === 'W4') ? await snapshotW4(pgUrl) : null;
    let w4Responses = 0;

    for (const w of workloads) {
      const v = await verify(db, w.id, targets, headers);
      outcome.verifications.push(v);
      if (!v.available) log(`${db} ${w.id}: skipped, ${v.reason}`);
      for (const m of v.mismatches)
        log(`${db} ${w.id}: ${m.target} does NOT match T3's answer (not timed): ${m.detail}`);
      if (v.available && w.id === 'W4') w4Responses += v.matched.length;
    }
    const timed = (w: WorkloadId) => outcome.verifications.find((v) => v.workload === w && v.available)?.matched ?? [];

    // The counting pass, untimed, before any load.
    for (const w of workloads) {
      for (const t of targets.filter((x) => timed(w.id).includes(x.id))) {
        const count = await countPass(db, w.id, t, o.countRequests, headers);
        outcome.sql.push(count);
        if (w.id === 'W4') w4Responses += o.countRequests;
      }
    }

    log(`${db}: verified and counted`);
    const reads = workloads.filter((w) => !w.writes);
    for (let round = 1; round <= o.rounds; round++) {
      for (const w of reads) {
        for (const t of rotate(targets, round - 1).filter((x) => timed(w.id).includes(x.id))) {
          outcome.runs.push(await measure(t, db, w.id, round, o, headers));
        }
      }
    }
    // Tail latency at half of T0's peak rate (goal: T3's p99 <= 2 x T0's p99).
    if (o.halfRate && db === 'postgres') {
      for (const w of reads) {
        const t0Runs = outcome.runs.filter((r) => r.workload === w.id && r.target === 'T0' && r.kind === 'peak');
        if (!t0Runs.length || !timed(w.id).includes('T3')) continue;
        const rate = median(t0Runs.map((r) => r.rps)) / 2;
        for (const t of targets.filter((x) => x.id === 'T0' || x.id === 'T3')) {
          outcome.runs.push(await measure(t, db, w.id, 1, o, headers, rate));
        }
      }
    }

    // W4 writes (orders, stock): after every read, so all reads see the seeded data.
    if (timed('W4').length) {
      for (let round = 1; round <= o.rounds; round++) {
        for (const t of rotate(targets, round - 1).filter((x) => timed('W4').includes(x.id))) {
          outcome.runs.push(await measure(t, db, 'W4', round, o, headers));
        }
      }
    }

    if (o.soakMin > 0 && db === 'postgres' && timed('W2').includes('T3')) {
      const t3 = targets.find((t) => t.id === 'T3')!;
      log(`soak: W2 on T3 for ${o.soakMin} min`);
      const samples: { t: number; rssMb: number }[] = [];
      const started = Date.now();
      const timer = setInterval(() => samples.push({ t: (Date.now() - started) / 1000, rssMb: t3.rssMb() }), 2_000);
      const r = await runLoad({
        url: t3.url,
        workload: 'W2',
        data: DATA,
        connections: o.connections,
        durationSec: o.soakMin * 60,
        headers,
      });
      clearInterval(timer);
      // Under load the resident size is a sawtooth (V8 lets the heap grow, then collects it): single
      // samples say where in a tooth they fell. What a leak raises is the floor the teeth return to,
      // so growth compares the low decile of the first minute's samples with the last minute's.
      const end = samples.at(-1)?.t ?? 0;
      const floor = (list: typeof samples) => percentile(Float64Array.from(list, (s) => s.rssMb).sort(), 10);
      const first = floor(samples.filter((s) => s.t <= 60));
      const last = floor(samples.filter((s) => s.t > end - 60));
      outcome.soak = {
        minutes: o.soakMin,
        rps: r.rps,
        p99: r.p99,
        firstRssMb: first,
        lastRssMb: last,
        growthPct: ((last - first) / first) * 100,
        samples,
      };
    }

    if (w4Before && pgUrl && timed('W4').length) {
      // Timed and warm-up requests: every 2xx answer of W4 runs placed (or should have placed) one order.
      const timedOk = outcome.runs
        .filter((r) => r.workload === 'W4')
        .reduce((n, r) => n + r.requests - r.non2xx + r.warmupOk, 0);
      outcome.oversell = await checkOversell(pgUrl, w4Before, w4Responses + timedOk);
      log(`W4 oversell check: ${JSON.stringify(outcome.oversell)}`);
    }
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Summary, goals, output

function summarise(runs: RunRecord[], sql: SqlCount[]): Summary[] {
  const keys = new Map<string, RunRecord[]>();
  for (const r of runs.filter((x) => x.kind === 'peak')) {
    const k = `${r.db}|${r.workload}|${r.target}`;
    keys.set(k, [...(keys.get(k) ?? []), r]);
  }
  return [...keys.values()].map((all) => {
    const { db, workload, target } = all[0]!;
    // A run with failed answers measured something else than the workload: refused, not averaged.
    const rs = all.filter((r) => !failed(r));
    return {
      db,
      workload,
      target,
      rounds: rs.length,
      refusedRuns: all.length - rs.length,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      sqlPerReq: sql.find((s) => s.db === db && s.workload === workload && s.target === target)?.perRequest ?? null,
      cpuMsPerReq: median(rs.map((r) => r.cpuMsPerReq)),
      peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      non2xx: all.reduce((n, r) => n + r.non2xx, 0),
      errors: all.reduce((n, r) => n + r.errors, 0),
    };
  });
}

const failed = (r: RunRecord) => r.non2xx > 0 || r.errors > 0;

function goals(
  summary: Summary[],
  runs: RunRecord[],
  sql: SqlCount[],
  soak: Record<string, unknown> | undefined,
  halfRate: boolean,
): Goal[] {
  const pg = (w: WorkloadId, t: TargetId) =>
    summary.find((s) => s.db === 'postgres' && s.workload === w && s.target === t && s.rounds > 0);
  const out: Goal[] = [];
  const ratio = (w: WorkloadId, vs: TargetId, min: number) => {
    const a = pg(w, 'T3');
    const b = pg(w, vs);
    const value = a && b ? a.rps / b.rps : null;
    out.push({ goal: `${w} T3/${vs} req/s`, value, threshold: `>= ${min}`, met: value === null ? null : value >= min });
  };
  // Issue 15's goals.
  for (const w of ['W1', 'W2', 'W3', 'W6'] as WorkloadId[]) ratio(w, 'T2', 1.0);
  ratio('W2', 'T1', 1.0);
  ratio('W3', 'T1', 1.0);
  ratio('W1', 'T0', 0.5);
  ratio('W2', 'T0', 0.4);
  ratio('W3', 'T0', 0.4);
  ratio('W4', 'T0', 0.5);
  ratio('W5', 'T0', 0.7);
  for (const [w, most] of [
    ['W1', 1],
    ['W2', 1],
    ['W3', 1],
    ['W6', 1],
    ['W4', 1],
  ] as [WorkloadId, number][]) {
    const c = sql.find((s) => s.db === 'postgres' && s.workload === w && s.target === 'T3');
    out.push({
      goal: `${w} T3 SQL statements per request`,
      value: c?.perRequest ?? null,
      threshold: `<= ${most}${w === 'W4' ? ' (round trips; BEGIN/COMMIT count)' : ''}`,
      met: c ? c.perRequest <= most : null,
    });
  }
  for (const w of ['W2', 'W3'] as WorkloadId[]) {
    const c = sql.find((s) => s.db === 'postgres' && s.workload === w && s.target === 'T3');
    const values = c?.byPageSize ? Object.values(c.byPageSize) : [];
    out.push({
      goal: `${w} T3 SQL/req independent of page size`,
      value: values.length ? Math.max(...values) : null,
      threshold: 'same count for first 5, 10, 50, 100',
      met: values.length ? values.every((v) => v === values[0]) : null,
      note: c?.byPageSize
        ? Object.entries(c.byPageSize)
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')
        : undefined,
    });
  }
  for (const w of ['W1', 'W2', 'W3', 'W5'] as WorkloadId[]) {
    const half = (t: TargetId) =>
      runs.find((r) => r.kind === 'half-rate' && r.db === 'postgres' && r.workload === w && r.target === t);
    const a = half('T3');
    const b = half('T0');
    out.push({
      goal: `${w} T3 p99 at half T0's peak rate / T0 p99`,
      value: a && b ? a.p99 / b.p99 : null,
      threshold: '<= 2',
      met: a && b ? a.p99 <= 2 * b.p99 : null,
      note:
        a && b
          ? `rate ${a.rate}/s: T3 ${a.p99.toFixed(2)} ms, T0 ${b.p99.toFixed(2)} ms`
          : halfRate
            ? 'not measured'
            : 'full runs only',
    });
  }
  const peak = (t: TargetId) =>
    Math.max(...summary.filter((s) => s.db === 'postgres' && s.target === t).map((s) => s.peakRssMb));
  const rss = Number.isFinite(peak('T3')) && Number.isFinite(peak('T0')) ? peak('T3') / peak('T0') : null;
  out.push({ goal: 'peak RSS T3/T0 (PostgreSQL)', value: rss, threshold: '<= 2', met: rss === null ? null : rss <= 2 });
  const growth = soak ? (soak.growthPct as number) : null;
  out.push({
    goal: 'RSS growth over the soak',
    value: growth,
    threshold: '<= 5 %',
    met: growth === null ? null : growth <= 5,
    note: soak
      ? `${soak.minutes} min of W2 on T3, low decile of RSS in the first and last minute: ${(soak.firstRssMb as number).toFixed(0)} -> ${(soak.lastRssMb as number).toFixed(0)} MiB`
      : 'run with --soak',
  });
  return out;
}

const f = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);

function markdown(results: Record<string, unknown>, summary: Summary[], goalRows: Goal[], notes: string[]): string {
  const lines: string[] = [];
  const m = results.machine as { cpus: number; loadavg: number[]; node: string };
  lines.push(`### Benchmark ${results.mode} run, commit ${results.commit}, ${results.date}`);
  lines.push('');
  lines.push(
    `${m.cpus} CPUs, load average ${m.loadavg.map((x) => x.toFixed(2)).join(' ')} at start, Node ${m.node}; ` +
      `${results.rounds} round(s) of ${results.durationSec} s, ${results.connections} connections, medians.`,
  );
  lines.push('');
  lines.push(
    '| db | workload | target | req/s | p50 ms | p99 ms | SQL/req | CPU-ms/req | peak RSS MiB | failed answers (runs refused) |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
  const order = ['W1', 'W2', 'W3', 'W6', 'W5', 'W4'];
  const sorted = [...summary].sort((a, b) =>
    a.db === b.db
      ? a.workload === b.workload
        ? a.target.localeCompare(b.target)
        : order.indexOf(a.workload) - order.indexOf(b.workload)
      : a.db === 'postgres'
        ? -1
        : 1,
  );
  for (const s of sorted) {
    lines.push(
      `| ${s.db} | ${s.workload} | ${s.target} | ${f(s.rps, 0)} | ${f(s.p50, 2)} | ${f(s.p99, 2)} | ${f(s.sqlPerReq, 1)} | ${f(s.cpuMsPerReq, 3)} | ${f(s.peakRssMb, 0)} | ${s.non2xx + s.errors}${s.refusedRuns ? ` (**${s.refusedRuns} refused**)` : ''} |`,
    );
  }
  lines.push('');
  lines.push('| goal (PostgreSQL) | value | threshold | met |');
  lines.push('|---|---:|---|---|');
  for (const g of goalRows) {
    lines.push(
      `| ${g.goal}${g.note ? ` (${g.note})` : ''} | ${f(g.value, 2)} | ${g.threshold} | ${g.met === null ? 'not measured' : g.met ? 'yes' : '**no**'} |`,
    );
  }
  if (notes.length) {
    lines.push('');
    for (const n of notes) lines.push(`- ${n}`);
  }
  return lines.join('\n');
}

function gitCommit(): string {
  try {
    const sha = execSync('git rev-parse --short HEAD', { cwd: projectRoot, encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain --untracked-files=no -- . ":!bench/results"', {
      cwd: projectRoot,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${sha}-dirty` : sha;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // The cost of metrics and tracing (issue 14) is a mode of its own, in bench/telemetry.ts.
  if (process.argv.includes('--telemetry'))
    return runTelemetryBench(process.argv.slice(2).filter((a) => a !== '--telemetry'));
  const o = parseOptions();
  const started = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-bench-'));
  const adminUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  let pgSet: PostgresDataSet | null = null;
  const cleanup = async () => {
    await pgSet?.drop().catch((e: Error) => log(`could not drop the bench database: ${e.message}`));
    pgSet = null;
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    log('interrupted: cleaning up');
    void cleanup().finally(() => process.exit(130));
  });

  const notes: string[] = [];
  const outcomes: DbOutcome[] = [];
  const machine = { cpus: os.cpus().length, loadavg: os.loadavg(), node: process.version };
  try {
    log(`seeding ${o.dbs.join(' and ')} (${DATA.pets} pets, ${DATA.categories} categories, ${DATA.orders} orders)`);
    const pgliteSeed = path.join(tmp, 'seed');
    const [pg] = await Promise.all([
      o.dbs.includes('postgres')
        ? seedPostgres(adminUrl).catch((e: Error) => {
            notes.push(`PostgreSQL skipped: ${e.message}`);
            return null;
          })
        : null,
      o.dbs.includes('pglite') ? seedPglite(pgliteSeed) : null,
    ]);
    pgSet = pg;
    log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    if (pgSet) {
      const url = pgSet.url;
      const key = createApiKey({ DATABASE_URL: url });
      outcomes.push(await measureDb('postgres', () => ({ DATABASE_URL: url }), key, o, url));
    }
    if (o.dbs.includes('pglite')) {
      // PGlite is single-process: each target gets its own copy of the seeded directory.
      const key = createApiKey({ PGLITE_DATA_DIR: pgliteSeed });
      const dirs = Object.fromEntries(
        TARGETS.filter((t) => o.targets.includes(t.id)).map((t) => {
          const dir = path.join(tmp, `pglite-${t.id}`);
          fs.cpSync(pgliteSeed, dir, { recursive: true });
          return [t.id, dir];
        }),
      );
      outcomes.push(await measureDb('pglite', (t) => ({ PGLITE_DATA_DIR: dirs[t]! }), key, o));
    }
  } finally {
    await cleanup();
  }

  const runs = outcomes.flatMap((x) => x.runs);
  const sql = outcomes.flatMap((x) => x.sql);
  const verifications = outcomes.flatMap((x) => x.verifications);
  const summary = summarise(runs, sql);
  const soak = outcomes.find((x) => x.soak)?.soak;
  const goalRows = goals(summary, runs, sql, soak, o.halfRate);
  for (const v of verifications) {
    if (!v.available) notes.push(`${v.db} ${v.workload}: ${v.reason}`);
    else {
      notes.push(
        `${v.db} ${v.workload}: answers of ${v.matched.filter((t) => t !== 'T3').join(', ') || 'no other target'} identical to T3's ` +
          `(T2: the same rows in its own schema), no errors (${v.samples} request(s) each)` +
          v.mismatches.map((m) => `; ${m.target} differs ${m.detail} (not timed)`).join(''),
      );
    }
  }
  for (const s of summary.filter((x) => x.refusedRuns > 0)) {
    notes.push(
      `**${s.db} ${s.workload} ${s.target}: ${s.refusedRuns} timed run(s) refused** (${s.non2xx} non-2xx or GraphQL-error answers, ` +
        `${s.errors} socket errors): not in the figures${s.rounds === 0 ? '; no valid run left' : ''}`,
    );
  }
  const oversell = outcomes.find((x) => x.oversell)?.oversell;
  if (oversell) {
    notes.push(
      `W4 oversell check: ${oversell.ok ? 'passed' : '**FAILED**'} (${oversell.pets} pets, ${oversell.ordersPlaced} orders placed, ` +
        `stock + ordered = initial stock: ${oversell.conserved}, negative stock: ${oversell.negativeStock}; ` +
        `${oversell.okResponses} 2xx answers counted, requests in flight when a run stops add up to 32 orders per run)`,
    );
  }
  for (const x of outcomes) notes.push(`${x.apiKeyNote}`);
  notes.push(`total time ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const results = {
    commit: gitCommit(),
    date: new Date().toISOString(),
    mode: o.quick ? 'quick' : 'full',
    machine,
    rounds: o.rounds,
    durationSec: o.durationSec,
    warmupSec: o.warmupSec,
    connections: o.connections,
    data: DATA,
    targets: TARGETS.map(({ id, title }) => ({ id, title })),
    workloads: WORKLOADS,
    summary,
    goals: goalRows,
    verifications,
    sqlCounts: sql,
    oversell: oversell ?? null,
    soak: soak ?? null,
    runs,
    notes,
  };
  const dir = path.join(projectRoot, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(markdown(results, summary, goalRows, notes) + '\n');
  log(`wrote bench/results/latest.json`);
}

// `npm run bench -- --subscriptions [--quick] [--subscribers N] [--duration S]`: the subscriptions
// benchmark of issue 13 instead (bench/subscriptions.ts).
(process.argv.includes('--subscriptions') ? subscriptionsMain() : main()).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
