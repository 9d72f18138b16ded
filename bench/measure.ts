/** Timed runs: one workload on one target, with autocannon, under the agent's and /proc's eyes. */
import { runLoad, type LoadResult } from './load';
import type { Options } from './options';
import { pgCpuMsBetween, type PgCpuSampler } from './pg-cpu';
import { log, type RunRecord } from './records';
import { DATA } from './seed';
import type { DbKind, Target } from './targets';
import { requestOf } from './verify';
import type { WorkloadId } from './workloads';

/**
 * One timed run (after a warm-up) of a workload on a target: throughput and latency from autocannon,
 * server CPU and statements from the agent, PostgreSQL backends' CPU from `pgCpu` (when given).
 */
export async function measure(
  target: Target,
  db: DbKind,
  workload: WorkloadId,
  round: number,
  o: Options,
  headers: Record<string, string>,
  pgCpu: PgCpuSampler | null,
  overallRate?: number,
): Promise<RunRecord> {
  // The issue fixes W4 at 32 connections; the read workloads follow --connections.
  const connections = workload === 'W4' || workload === 'W7' ? 32 : o.connections;
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
  const pgBefore = (await pgCpu?.sample()) ?? null;
  const r: LoadResult = await runLoad({ ...base, durationSec: o.durationSec });
  const pgAfter = (await pgCpu?.sample()) ?? null;
  const after = await target.stats();
  const pgCpuMs = pgCpuMsBetween(pgBefore, pgAfter);
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
    pgCpuMsPerReq: pgCpuMs === null ? null : pgCpuMs / Math.max(1, r.requests),
    peakRssMb: target.peakRssMb(),
    sqlPerReqInRun: (after.statements - before.statements) / Math.max(1, r.requests),
  };
  log(
    `${db} ${workload} ${target.id}${overallRate ? ` @${Math.round(overallRate)}/s` : ''} round ${round}: ` +
      `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ` +
      `${record.cpuMsPerReq.toFixed(3)} CPU-ms/req` +
      (record.pgCpuMsPerReq === null ? '' : `, PostgreSQL ${record.pgCpuMsPerReq.toFixed(3)} CPU-ms/req`) +
      `, ${record.peakRssMb.toFixed(0)} MiB` +
      (r.non2xx || r.errors
        ? `, REFUSED: ${r.non2xx} non-2xx or GraphQL-error answers, ${r.errors} socket errors`
        : ''),
  );
  return record;
}

/** The list started at its `by`-th item: each round visits the targets in another order. */
export const rotate = <T>(xs: T[], by: number) => xs.map((_, i) => xs[(i + by) % xs.length]!);
