/** One database's pass of the benchmark: targets up, answers verified, statements counted, runs timed. */
import { percentile, runLoad } from './load';
import { measure, rotate } from './measure';
import { generatedShapes, prepareGenerated, type GeneratedWorkload } from './generated';
import { compareGenerated, type GeneratedComparison } from './generated-compare';
import type { Options } from './options';
import { checkOversell, snapshotW4 } from './oversell';
import { ensurePeer, PEER_PG_MODULE } from './peer';
import { createPgCpuSampler, type PgCpuSampler } from './pg-cpu';
import { log, median, type RunRecord, type SqlCount, type Verification } from './records';
import { DATA } from './seed';
import { offers, startTarget, TARGETS, type DbKind, type Target, type TargetId } from './targets';
import { countPass, verify } from './verify';
import { WORKLOADS, type WorkloadId } from './workloads';

/** What one database's pass produced. */
export interface DbOutcome {
  db: DbKind;
  verifications: Verification[];
  sql: SqlCount[];
  runs: RunRecord[];
  oversell?: Record<string, unknown>;
  soak?: Record<string, unknown>;
  apiKeyNote: string;
  /** WG's shapes on this database, when it ran. */
  generated?: GeneratedWorkload;
  /** WG shape by shape on T3 and T2 (PostgreSQL, both targets), when it ran. */
  generatedComparison?: GeneratedComparison;
  /** WG shape by shape on T3 and T3base (`--baseline DIR`; `--baseline .`: the A/A control), when it ran. */
  generatedBaseline?: GeneratedComparison;
}

/**
 * One database: starts the targets (each its own process, on the Node of `--node`), verifies their
 * answers, counts statements, then times the read workloads in interleaved rounds, the half-rate
 * runs, W4's writes and the soak; stops the targets whatever happens.
 */
export async function measureDb(
  db: DbKind,
  dbEnvFor: (t: TargetId) => Record<string, string>,
  apiKey: { key: string | null; note: string },
  o: Options,
  node: string,
  pgUrl?: string,
): Promise<DbOutcome> {
  const outcome: DbOutcome = { db, verifications: [], sql: [], runs: [], apiKeyNote: apiKey.note };
  const headers: Record<string, string> = apiKey.key ? { authorization: `Bearer ${apiKey.key}` } : {};
  // Per-key rate limits (issue 5) would measure the limiter, not the gateway: raised for the bench.
  const extraEnv = { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' };
  log(`${db}: starting ${o.targets.join(', ')}`);
  const targets: Target[] = [];
  let pgCpu: PgCpuSampler | null = null;
  try {
    const started = Date.now();
    // The peer reads PostgreSQL only (PostGraphile has no PGlite mode in this setup).
    const workloads = WORKLOADS.filter((w) => o.workloads.includes(w.id) && (db === 'postgres' || w.onPglite));
    const chosen = TARGETS.filter(
      (t) => o.targets.includes(t.id) && (db === 'postgres' || !t.peer) && workloads.some((w) => offers(t.id, w)),
    );
    if (chosen.some((t) => t.peer)) ensurePeer(log);
    const peerEnv = { BENCH_PG_MODULE: PEER_PG_MODULE, GRAPHILE_ENV: 'production' };
    const results = await Promise.allSettled(
      chosen.map((t) =>
        startTarget(t.id, db, dbEnvFor(t.id), t.peer ? peerEnv : t.id.startsWith('T3') ? extraEnv : {}, node),
      ),
    );
    for (const r of results) if (r.status === 'fulfilled') targets.push(r.value);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    log(`${db}: targets up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    pgCpu = db === 'postgres' && pgUrl ? await createPgCpuSampler(pgUrl) : null;
    const t3 = targets.find((t) => t.id === 'T3');
    const t2 = targets.find((t) => t.id === 'T2');
    if (t3 && workloads.some((w) => w.id === 'WG'))
      outcome.generated = await prepareGenerated(t3, headers, o.generated, t2);
    const w4Before =
      db === 'postgres' && pgUrl && workloads.some((w) => w.id === 'W4') ? await snapshotW4(pgUrl) : null;
    let w4Responses = 0;

    for (const w of workloads) {
      const v = await verify(db, w.id, targets, headers);
      outcome.verifications.push(v);
      if (!v.available) log(`${db} ${w.id}: skipped, ${v.reason}`);
      for (const m of v.mismatches)
        log(`${db} ${w.id}: ${m.target} does NOT match T3's answer (not timed): ${m.detail}`);
      if (v.available && w.writes) w4Responses += v.matched.length;
    }
    const timed = (w: WorkloadId) => outcome.verifications.find((v) => v.workload === w && v.available)?.matched ?? [];

    // The counting pass, untimed, before any load.
    for (const w of workloads) {
      for (const t of targets.filter((x) => timed(w.id).includes(x.id))) {
        const count = await countPass(db, w.id, t, o.countRequests, headers, pgCpu);
        outcome.sql.push(count);
        if (w.writes) w4Responses += o.countRequests;
      }
    }

    log(`${db}: verified and counted`);
    const reads = workloads.filter((w) => !w.writes);
    for (let round = 1; round <= o.rounds; round++) {
      for (const w of reads) {
        for (const t of rotate(targets, round - 1).filter((x) => timed(w.id).includes(x.id))) {
          outcome.runs.push(await measure(t, db, w.id, round, o, headers, pgCpu));
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
          outcome.runs.push(await measure(t, db, w.id, 1, o, headers, pgCpu, rate));
        }
      }
    }

    // WG shape by shape on T3 and T2: after the read rounds, before any write (the answers were
    // compared on the seeded data).
    if (t3 && t2 && timed('WG').includes('T2') && timed('WG').includes('T3')) {
      outcome.generatedComparison = await compareGenerated(db, t3, t2, generatedShapes(), headers, pgCpu, {
        ms: o.shapeMs,
        rounds: o.shapeRounds,
        concurrency: o.shapeConcurrency,
      });
    }
    // The same against T3base, T3's own documents: a lever's A/B shape by shape, or with `--baseline .`
    // the A/A control that says how far this sitting's noise alone spreads the ratios.
    const t3base = targets.find((t) => t.id === 'T3base');
    if (t3 && t3base && timed('WG').includes('T3base') && timed('WG').includes('T3')) {
      outcome.generatedBaseline = await compareGenerated(
        db,
        t3,
        t3base,
        generatedShapes(),
        headers,
        pgCpu,
        { ms: o.shapeMs, rounds: o.shapeRounds, concurrency: o.shapeConcurrency },
        'T3base',
      );
    }

    // W4 and W7 write (orders, stock): after every read, so all reads see the seeded data.
    for (const w of workloads.filter((x) => x.writes)) {
      for (let round = 1; round <= o.rounds; round++) {
        for (const t of rotate(targets, round - 1).filter((x) => timed(w.id).includes(x.id))) {
          outcome.runs.push(await measure(t, db, w.id, round, o, headers, pgCpu));
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
    await pgCpu?.close().catch(() => undefined);
    await Promise.all(targets.map((t) => t.stop()));
  }
  return outcome;
}
