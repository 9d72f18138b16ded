/**
 * The report: medians per target, the goals of issues 6, 15 and 20, the markdown table, and WG shape
 * by shape against T2 (issue 33: the distribution over the generated shapes).
 */
import { execSync } from 'node:child_process';
import { parse, print } from 'graphql';
import { projectRoot } from '../src/config';
import type { GeneratedWorkload } from './generated';
import type { GeneratedComparison } from './generated-compare';
import { median, type Goal, type RunRecord, type SqlCount, type Summary } from './records';
import type { TargetId } from './targets';
import type { WorkloadId } from './workloads';

/** Medians per database, workload and target over the peak runs that had no failed answer. */
export function summarise(runs: RunRecord[], sql: SqlCount[]): Summary[] {
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
      pgCpuMsPerReq: rs.some((r) => r.pgCpuMsPerReq === null) ? null : median(rs.map((r) => r.pgCpuMsPerReq!)),
      peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      non2xx: all.reduce((n, r) => n + r.non2xx, 0),
      errors: all.reduce((n, r) => n + r.errors, 0),
    };
  });
}

const failed = (r: RunRecord) => r.non2xx > 0 || r.errors > 0;

/** The issues' goals (PostgreSQL runs), each with its value and whether it is met. */
export function goals(
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
  // Issue 20's: the gateway's cost per request, its own and PostgreSQL's, at most the peer's.
  const cost = (w: WorkloadId, vs: TargetId, key: 'cpuMsPerReq' | 'pgCpuMsPerReq', label: string) => {
    const a = pg(w, 'T3')?.[key];
    const b = pg(w, vs)?.[key];
    const value = a != null && b != null && b > 0 ? a / b : null;
    out.push({
      goal: `${w} T3/${vs} ${label} per request`,
      value,
      threshold: '<= 1',
      met: value === null ? null : value <= 1,
    });
  };
  for (const w of ['W1', 'W2', 'W3', 'W6'] as WorkloadId[]) {
    cost(w, 'T2', 'pgCpuMsPerReq', 'PostgreSQL CPU');
    cost(w, 'T2', 'cpuMsPerReq', 'server CPU');
  }
  // A/B of one lever (`--baseline DIR`): this build against the earlier one, in the same run.
  for (const w of ['W1', 'W2', 'W3', 'W5', 'W6'] as WorkloadId[]) {
    if (!pg(w, 'T3base')) continue;
    const a = pg(w, 'T3')!;
    const b = pg(w, 'T3base')!;
    const note = `T3 ${a.rps.toFixed(0)} req/s, ${a.pgCpuMsPerReq?.toFixed(3)} PostgreSQL CPU-ms/req; T3base ${b.rps.toFixed(0)}, ${b.pgCpuMsPerReq?.toFixed(3)}`;
    out.push({ goal: `${w} T3/T3base req/s (A/B)`, value: a.rps / b.rps, threshold: 'A/B', met: null, note });
    cost(w, 'T3base', 'pgCpuMsPerReq', 'PostgreSQL CPU');
    cost(w, 'T3base', 'cpuMsPerReq', 'server CPU');
  }
  const wg = sql.find((s) => s.db === 'postgres' && s.workload === 'WG' && s.target === 'T3');
  out.push({
    goal: 'WG T3 SQL statements per root field',
    value: wg?.perRootField ?? null,
    threshold: '1 for every shape',
    met: wg?.distribution ? wg.shapesOverOnePerRoot === 0 : null,
    note: wg?.distribution
      ? `${wg.shapesOverOnePerRoot} shape(s) took more; statements per request: ${histogram(wg.distribution)}`
      : undefined,
  });
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

/** A figure for the table, or an en dash when there is none. */
const f = (x: number | null | undefined, digits = 1) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);

/** The report as markdown: one row per database, workload and target, then the goals and notes. */
export function markdown(
  results: Record<string, unknown>,
  summary: Summary[],
  goalRows: Goal[],
  notes: string[],
): string {
  const lines: string[] = [];
  const m = results.machine as { cpus: number; loadavg: number[]; node: string };
  lines.push(`### Benchmark ${results.mode} run, commit ${results.commit}, ${results.date}`);
  lines.push('');
  lines.push(
    `${m.cpus} CPUs, load average ${m.loadavg.map((x) => x.toFixed(2)).join(' ')} at start, targets on Node ${results.targetNode}; ` +
      `${results.rounds} round(s) of ${results.durationSec} s, ${results.connections} connections, medians.`,
  );
  lines.push('');
  lines.push(
    '| db | workload | target | req/s | p50 ms | p99 ms | SQL/req | CPU-ms/req | PG CPU-ms/req | peak RSS MiB | failed answers (runs refused) |',
  );
  lines.push('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const order = ['W1', 'W2', 'W3', 'W6', 'WG', 'W5', 'W4', 'W7'];
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
      `| ${s.db} | ${s.workload} | ${s.target} | ${f(s.rps, 0)} | ${f(s.p50, 2)} | ${f(s.p99, 2)} | ${f(s.sqlPerReq, 1)} | ${f(s.cpuMsPerReq, 3)} | ${s.db === 'pglite' ? 'in process' : f(s.pgCpuMsPerReq, 3)} | ${f(s.peakRssMb, 0)} | ${s.non2xx + s.errors}${s.refusedRuns ? ` (**${s.refusedRuns} refused**)` : ''} |`,
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

/** The commit measured (`-dirty` with uncommitted changes outside bench/results). */
export function gitCommit(): string {
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

/** `0: 3, 1: 120, 2: 8`: requests per number of statements. */
export function histogram(distribution: Record<string, number>): string {
  return Object.entries(distribution)
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

const RATIO_ROWS: { key: 'rps' | 'cpu' | 'pgCpu'; label: string; good: string }[] = [
  { key: 'rps', label: 'req/s (higher: T3 faster)', good: '≥ 1' },
  { key: 'cpu', label: 'server CPU per request', good: '≤ 1' },
  { key: 'pgCpu', label: 'PostgreSQL CPU per request', good: '≤ 1' },
];

/**
 * No goal, what req/s includes: the bench client's CPU per request reading T3's answers against
 * T2's (at 2 in flight the client shares the machine's cores with both servers).
 */
const CLIENT_ROW = { key: 'client', label: 'bench client CPU per request (no goal)', good: '≤ 1' } as const;

/** Both targets sent each shape at one rate (generated-compare.ts): CPU per request at equal load. */
const PACED_ROWS = [
  { key: 'pacedCpu', label: 'server CPU per request, both at one offered rate', good: '≤ 1' },
  { key: 'pacedPgCpu', label: 'PostgreSQL CPU per request, both at one offered rate', good: '≤ 1' },
] as const;

/**
 * WG shape by shape (generated-compare.ts): the distribution over shapes of the per-shape ratios
 * T3/T2, the skipped and differing shapes by reason, and the worst shapes by number.
 */
export function generatedMarkdown(c: GeneratedComparison, g: GeneratedWorkload | undefined, pointer = true): string {
  const lines: string[] = [];
  const ref = c.reference ?? 'T2';
  const peer = ref === 'T2' ? g?.peer : undefined;
  lines.push(
    `#### ${c.db} WG shape by shape, T3/${ref}: ${c.shapes} shapes, ${c.options.rounds} round(s) of ${c.options.ms} ms per shape and target at ${c.options.concurrency} in flight (${c.seconds.toFixed(0)} s)`,
  );
  lines.push('');
  if (g && peer) {
    const skipped = Object.values(peer.skipped).reduce((a, b) => a + b, 0);
    lines.push(
      `Of ${g.generated} generated shapes (seed ${g.seed}) T3 answered ${g.kept} without error; ${peer.same} translated and answered alike by T2 ` +
        `(measured: ${c.shapes}${c.failed.length ? `, ${c.failed.length} left out for a failed answer` : ''}), ` +
        `${peer.differs} translated but answered differently (dropped), ${skipped} not translatable:` +
        Object.entries(peer.skipped)
          .sort((a, b) => b[1] - a[1])
          .map(([reason, n]) => ` ${n} ${reason};`)
          .join('')
          .replace(/;$/, '.'),
    );
    lines.push('');
  }
  if (ref === 'T3base')
    lines.push(
      'T3base is T3 at the `--baseline` build, asked the same documents: with `--baseline .` an A/A control, the spread this sitting gives two identical servers.\n',
    );
  lines.push(`| T3/${ref} per shape | min | p10 | p25 | median | p75 | p90 | max | geomean | T3 at least as good |`);
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of [...RATIO_ROWS, CLIENT_ROW, ...PACED_ROWS]) {
    const d = c.distribution[row.key];
    if (!d && (row.key === 'pacedCpu' || row.key === 'pacedPgCpu')) continue; // an earlier run's record
    if (!d) {
      lines.push(`| ${row.label} | – | – | – | – | – | – | – | – | – |`);
      continue;
    }
    lines.push(
      `| ${row.label} | ${f(d.min, 2)} | ${f(d.p10, 2)} | ${f(d.p25, 2)} | ${f(d.median, 2)} | ${f(d.p75, 2)} | ${f(d.p90, 2)} | ${f(d.max, 2)} | ${f(d.geomean, 2)} | ${(d.atLeastAsGood * 100).toFixed(0)} % (ratio ${row.good}) |`,
    );
  }
  lines.push('');
  for (const row of RATIO_ROWS) {
    const worst = c.worst.filter((w) => w.metric === row.key);
    if (!worst.length) continue;
    lines.push(
      `Worst for T3 by ${row.label}: ` +
        worst.map((w) => `#${w.index} (${f(row.key === 'pgCpu' ? w.ratio.pgCpu : w.ratio[row.key], 2)})`).join(', ') +
        (pointer && ref === 'T2' ? ' (documents in bench/results/generated-latest.md)' : ''),
    );
  }
  return lines.join('\n');
}

/** The worst shapes with their documents, for whoever works on the compiler (generated-latest.md). */
export function generatedWorstMarkdown(
  c: GeneratedComparison,
  g: GeneratedWorkload | undefined,
  header: { commit: string; date: string },
): string {
  const lines: string[] = [];
  lines.push(`# WG: the generated shapes where T3 fares worst against T2`);
  lines.push('');
  lines.push(
    `Commit ${header.commit}, ${header.date}, ${c.db}. Written by \`npm run bench\` (bench/generated-compare.ts); ` +
      `a shape's index replays it: \`operationSeed(${g?.seed ?? 'seed'}, index)\` in test/helpers/query-generator.ts ` +
      `(BENCH_GEN_SEED, the same data set).`,
  );
  lines.push('');
  lines.push(generatedMarkdown(c, g, false));
  const side = (s: GeneratedComparison['perShape'][number]['t3']) =>
    `${f(s.rps, 0)} req/s, p50 ${f(s.p50Ms, 2)} ms, ${f(s.cpuMsPerReq, 3)} server CPU-ms/req, ` +
    `${f(s.pgCpuMsPerReq, 3)} PostgreSQL CPU-ms/req, ${f(s.clientCpuMsPerReq, 3)} bench client CPU-ms/req, ` +
    `${f(s.sqlPerReq, 1)} statements/req (${s.requests} requests)`;
  for (const row of RATIO_ROWS) {
    const worst = c.worst.filter((w) => w.metric === row.key);
    if (!worst.length) continue;
    lines.push('');
    lines.push(`## By ${row.label}`);
    for (const w of worst) {
      lines.push('');
      lines.push(
        `### #${w.index} (${w.rootFields.join(', ')}): T3/T2 req/s ${f(w.ratio.rps, 2)}, server CPU ${f(w.ratio.cpu, 2)}, PostgreSQL CPU ${f(w.ratio.pgCpu, 2)}`,
      );
      lines.push('');
      lines.push(`- T3: ${side(w.t3)}`);
      lines.push(`- T2: ${side(w.t2)}`);
      if (w.paced)
        lines.push(
          `- both at ${f(w.paced.rps, 0)} req/s: server CPU-ms/req T3 ${f(w.paced.t3.cpuMsPerReq, 3)}, T2 ${f(w.paced.t2.cpuMsPerReq, 3)}; ` +
            `PostgreSQL CPU-ms/req T3 ${f(w.paced.t3.pgCpuMsPerReq, 3)}, T2 ${f(w.paced.t2.pgCpuMsPerReq, 3)}`,
        );
      lines.push('');
      lines.push('```graphql');
      lines.push(pretty(w.query));
      lines.push('```');
      lines.push('');
      lines.push(`variables: \`${JSON.stringify(w.variables)}\``);
      lines.push('');
      lines.push('T2 (PostGraphile) was asked:');
      lines.push('');
      lines.push('```graphql');
      lines.push(pretty(w.peerQuery));
      lines.push('```');
      lines.push('');
      lines.push(`variables: \`${JSON.stringify(w.peerVariables)}\``);
    }
  }
  if (g?.peer?.differing.length) {
    lines.push('');
    lines.push(`## Answered differently (dropped; the first ${g.peer.differing.length})`);
    for (const d of g.peer.differing) {
      lines.push('');
      lines.push(`### #${d.index}: ${d.detail}`);
      lines.push('');
      lines.push('```graphql');
      lines.push(pretty(d.query));
      lines.push('```');
      lines.push('');
      lines.push(
        `variables: \`${JSON.stringify(d.variables)}\`; T2: \`${d.peerQuery.replace(/\s+/g, ' ')}\` \`${JSON.stringify(d.peerVariables)}\``,
      );
    }
  }
  return lines.join('\n') + '\n';
}

const pretty = (query: string) => {
  try {
    return print(parse(query));
  } catch {
    return query;
  }
};
