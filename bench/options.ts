/** The command line of `npm run bench` (the flags are listed in run.ts). */
import { parseArgs } from 'node:util';
import path from 'node:path';
import fs from 'node:fs';
import { baseline, TARGETS, type DbKind, type TargetId } from './targets';
import { WORKLOADS, type WorkloadId } from './workloads';

/** What one `npm run bench` run measures, from its command line (see run.ts for the flags). */
export interface Options {
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
  /** Generated read shapes in the WG workload (bench/generated.ts). */
  generated: number;
  /** WG shape by shape on T3 and T2 (bench/generated-compare.ts): ms per run, rounds, requests in flight. */
  shapeMs: number;
  shapeRounds: number;
  shapeConcurrency: number;
  /** The Node every target runs on: '24' (from the npm registry when this one is older) or 'current'. */
  node: '24' | 'current';
}

export function parseOptions(): Options {
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
      generated: { type: 'string' },
      'shape-ms': { type: 'string' },
      'shape-rounds': { type: 'string' },
      'shape-concurrency': { type: 'string' },
      node: { type: 'string' },
      baseline: { type: 'string' },
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
  if (values.baseline) {
    baseline.dir = path.resolve(values.baseline);
    if (!fs.existsSync(path.join(baseline.dir, 'dist', 'src', 'main.js')))
      throw new Error(`--baseline: no build at ${baseline.dir}/dist/src/main.js (run npm run build there)`);
  }
  const defaults = TARGETS.filter((t) => !t.baseline || baseline.dir).map((t) => t.id);
  const targets = (list(values.targets) ?? defaults) as TargetId[];
  if (targets.includes('T3base') && !baseline.dir) throw new Error('--targets T3base needs --baseline DIR');
  if (!targets.includes('T3')) throw new Error('--targets: T3 is the reference and must be included');
  const workloads = (list(values.workloads) ?? WORKLOADS.map((w) => w.id)) as WorkloadId[];
  for (const w of workloads) if (!WORKLOADS.some((x) => x.id === w)) throw new Error(`--workloads: unknown "${w}"`);
  const node = values.node ?? '24';
  if (node !== '24' && node !== 'current') throw new Error('--node: 24 or current');
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
    generated: num(values.generated, quick ? 50 : 200),
    shapeMs: num(values['shape-ms'], 100),
    shapeRounds: num(values['shape-rounds'], quick ? 2 : 6),
    shapeConcurrency: num(values['shape-concurrency'], 2),
    node,
  };
}
