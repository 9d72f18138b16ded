/**
 * `npm run bench [-- --quick] [options]`: the benchmark of issue 6 (README, "Benchmarks").
 *
 * Seeds one data set (seed.ts) into a fresh PostgreSQL database and a fresh PGlite data directory,
 * starts T0, T1 and T3 on each and T2 (PostGraphile, peer.ts) on PostgreSQL (targets.ts), all
 * on one Node (node.ts: 24 by default), checks that
 * every target answers every workload with the reference bytes (T3's answer, which must hold no
 * error; T2 row for row, its schema being its own), counts SQL statements per request in a separate
 * untimed pass, then drives the targets with autocannon in interleaved rounds and reports medians,
 * with the server's and PostgreSQL's CPU per request (pg-cpu.ts). WG is a workload of generated
 * read shapes (generated.ts; their answers are checked against an independent reader by
 * test/graphql/generated-reads.test.ts): on T3, and on T2 for the shapes that translate into
 * PostGraphile's schema with the same meaning and that it answers alike (peer-translate.ts); those are
 * also measured shape by shape on both (generated-compare.ts), and the report gives the distribution
 * over shapes of the ratios T3/T2, the worst shapes' documents in bench/results/generated-latest.md.
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
 *   --workloads LIST   e.g. W1,W2,WG (default all)
 *   --generated N      generated shapes in WG (default 200; --quick 50), seed BENCH_GEN_SEED
 *   --shape-ms MS      WG shape by shape: ms per shape, target and round (default 100)
 *   --shape-rounds N   ... rounds, alternating which target goes first (default 6; --quick 2)
 *   --shape-concurrency N  ... requests in flight (default 2)
 *   --node 24|current  the Node the targets run on (default 24, from the npm registry when needed)
 *   --baseline DIR     also run T3base: the gateway built in checkout DIR (A/B of one lever, one sitting;
 *                      both read one database, migrated by this checkout: a lever in a migration is
 *                      measured on the database alone, as docs/benchmarks.md round 12 does)
 *   --soak [MIN]       also run W2 on T3 for MIN minutes (default 5) and report RSS growth
 *   --subscriptions    run the subscriptions benchmark (bench/subscriptions.ts) instead
 *   --telemetry        instead: the cost of metrics and tracing, W1 and W2 (bench/telemetry.ts)
 * Environment: BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test),
 *   BENCH_API_KEY (otherwise a key is created with `npm run apikey` when the build has API keys),
 *   BENCH_T0_BURN_US (a control: T0 spends that much CPU per GraphQL request, t0-server.ts).
 */
//
// The roles, one module each: options.ts (command line), measure-db.ts (one database: targets up,
// verify.ts's checks and counts, measure.ts's timed runs), report.ts (medians, goals, markdown).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../src/config';
import { measureDb, type DbOutcome } from './measure-db';
import { nodeVersion, targetNode } from './node';
import { parseOptions } from './options';
import { log } from './records';
import { generatedMarkdown, generatedWorstMarkdown, gitCommit, goals, histogram, markdown, summarise } from './report';
import { createApiKey, DATA, seedPglite, seedPostgres, type PostgresDataSet } from './seed';
import { subscriptionsMain } from './subscriptions';
import { TARGETS } from './targets';
import { runTelemetryBench } from './telemetry';
import { WORKLOADS } from './workloads';

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
  const node = targetNode(o.node, log);
  const targetNodeVersion = nodeVersion(node);
  log(`targets run on Node ${targetNodeVersion} (${node})`);
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
      outcomes.push(await measureDb('postgres', () => ({ DATABASE_URL: url }), key, o, node, url));
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
      outcomes.push(await measureDb('pglite', (t) => ({ PGLITE_DATA_DIR: dirs[t]! }), key, o, node));
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
  // Issue 33, generality: WG shape by shape against T2, the median over shapes and the share where T3
  // is at least as good.
  const comparisons = outcomes.flatMap((x) => (x.generatedComparison ? [x.generatedComparison] : []));
  for (const c of comparisons) {
    for (const [key, label, higher] of [
      ['rps', 'req/s', true],
      ['cpu', 'server CPU per request', false],
      ['pgCpu', 'PostgreSQL CPU per request', false],
    ] as const) {
      const d = c.distribution[key];
      goalRows.push({
        goal: `WG T3/T2 ${label}, median over shapes`,
        value: d?.median ?? null,
        threshold: higher ? '>= 1' : '<= 1',
        met: d ? (higher ? d.median >= 1 : d.median <= 1) : null,
        note: d
          ? `${c.shapes} shapes; p10 ${d.p10.toFixed(2)}, p90 ${d.p90.toFixed(2)}; T3 at least as good on ${(d.atLeastAsGood * 100).toFixed(0)} %`
          : undefined,
      });
    }
  }
  for (const v of verifications) {
    if (!v.available) notes.push(`${v.db} ${v.workload}: ${v.reason}`);
    else {
      notes.push(
        `${v.db} ${v.workload}: answers of ${v.matched.filter((t) => t !== 'T3').join(', ') || 'no other target'} identical to T3's` +
          (v.matched.includes('T2') ? ' (T2: the same rows in its own schema), ' : ', ') +
          `no errors (${v.samples} request(s) each)` +
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
  for (const count of sql.filter((s) => s.workload === 'WG' && s.distribution)) {
    const g = outcomes.find((x) => x.db === count.db && x.generated)?.generated;
    notes.push(
      `${count.db} WG ${count.target}: ${count.perRequest.toFixed(2)} statements per request, ` +
        `${count.perRootField!.toFixed(2)} per root field, ${count.shapesOverOnePerRoot} shape(s) above one per root field; ` +
        `over one pass of every shape: ${count.passCpuMsPerReq!.toFixed(3)} server CPU-ms/req, ` +
        `${count.passPgCpuMsPerReq == null ? '–' : count.passPgCpuMsPerReq.toFixed(3)} PostgreSQL CPU-ms/req; ` +
        `statements per request (statements: shapes) ${histogram(count.distribution!)}` +
        (g
          ? ` (${count.target === 'T2' ? `the ${g.peer?.same ?? 0} shapes it answers alike, of ` : ''}${g.kept} of ${g.generated} generated shapes kept, seed ${g.seed})`
          : ''),
    );
  }
  notes.push(`total time ${((Date.now() - started) / 1000).toFixed(0)} s`);

  const results = {
    commit: gitCommit(),
    date: new Date().toISOString(),
    mode: o.quick ? 'quick' : 'full',
    machine,
    targetNode: targetNodeVersion,
    generated: outcomes.filter((x) => x.generated).map((x) => x.generated),
    generatedComparison: comparisons,
    generatedBaseline: outcomes.flatMap((x) => (x.generatedBaseline ? [x.generatedBaseline] : [])),
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
  let report = markdown(results, summary, goalRows, notes);
  for (const c of comparisons) {
    const g = outcomes.find((x) => x.db === c.db)?.generated;
    report += '\n\n' + generatedMarkdown(c, g);
    fs.writeFileSync(path.join(dir, 'generated-latest.md'), generatedWorstMarkdown(c, g, results));
    log('wrote bench/results/generated-latest.md (the worst shapes with their documents)');
  }
  for (const c of results.generatedBaseline) {
    report += '\n\n' + generatedMarkdown(c, outcomes.find((x) => x.db === c.db)?.generated);
  }
  process.stdout.write(report + '\n');
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
