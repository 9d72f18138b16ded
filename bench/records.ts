/** What the benchmark records: one timed run, a verification, a statement count, a summary row, a goal. */
import type { DbKind, TargetId } from './targets';
import type { WorkloadId } from './workloads';

/** One timed run of one workload on one target. */
export interface RunRecord {
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
  /** CPU of the PostgreSQL backends serving the target, per request (null: PGlite, or not measurable). */
  pgCpuMsPerReq: number | null;
  peakRssMb: number;
  /** Statements per request seen during the timed run (cross-check of the counting pass). */
  sqlPerReqInRun: number;
}

export interface Verification {
  db: DbKind;
  workload: WorkloadId;
  available: boolean;
  reason?: string;
  /** Targets whose answers matched the reference (and so were timed). */
  matched: TargetId[];
  mismatches: { target: TargetId; detail: string }[];
  samples: number;
}

export interface SqlCount {
  db: DbKind;
  workload: WorkloadId;
  target: TargetId;
  perRequest: number;
  /** W2/W3: statements per request for other page sizes. */
  byPageSize?: Record<string, number>;
  /** WG: how many requests took each number of statements, and statements per root field. */
  distribution?: Record<string, number>;
  perRootField?: number;
  /** WG: shapes that took more statements than they have root fields. */
  shapesOverOnePerRoot?: number;
  /** WG: server and PostgreSQL CPU per request over the counting pass (every shape once). */
  passCpuMsPerReq?: number;
  passPgCpuMsPerReq?: number | null;
}

export interface Summary {
  db: DbKind;
  workload: WorkloadId;
  target: TargetId;
  rounds: number;
  rps: number;
  p50: number;
  p99: number;
  sqlPerReq: number | null;
  cpuMsPerReq: number;
  pgCpuMsPerReq: number | null;
  peakRssMb: number;
  non2xx: number;
  errors: number;
  /** Timed runs refused because some answers failed (not in the medians). */
  refusedRuns: number;
}

export interface Goal {
  goal: string;
  value: number | null;
  threshold: string;
  met: boolean | null;
  note?: string;
}

/** The median (the mean of the middle two for an even count); NaN for none. */
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
