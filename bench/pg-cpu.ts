/**
 * PostgreSQL's CPU per request: the CPU time (user + system) of the server's backend processes
 * serving the bench database, read from /proc/<pid>/stat around each timed run. The database is the
 * part that does not scale out with more gateway processes, so its cost per request is reported for
 * every target. Only one target is under load at a time; the others' idle backends add nothing.
 *
 * Read from /proc rather than pg_stat_statements: that extension needs shared_preload_libraries (a
 * server restart), and its times leave out parsing, JSON output and the wire protocol. Each backend's
 * time on a CPU comes from /proc/<pid>/schedstat (nanoseconds) where the kernel keeps it, else from
 * /proc/<pid>/stat's utime + stime (clock ticks, 10 ms: a short measurement then needs many requests
 * for the ticks not to be the noise). /proc needs the
 * server on this machine (in this PID namespace): where its backends are not there, the figure is
 * null and the report says "–". A backend that exits during a run takes its CPU with it (pools keep
 * their connections during a run, so this is rare); a backend started during a run counts from zero.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Client } from 'pg';

export interface PgCpuSampler {
  /** CPU time (ms) per backend pid now; null when /proc does not show the backends. */
  sample(): Promise<Map<number, number> | null>;
  close(): Promise<void>;
}

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (ms) a process has used, or null once it is gone or unreadable. */
function cpuMs(pid: number): number | null {
  try {
    // Time on a CPU in nanoseconds (sched_info; a backend is one thread, the group leader).
    const ns = Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // no schedstat in this kernel: the clock ticks below
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14 and 15 of proc(5): utime, stime
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** A sampler of the backends of the database at `url` (its own connection left out). */
export async function createPgCpuSampler(url: string): Promise<PgCpuSampler> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return {
    async sample() {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      const times = new Map<number, number>();
      for (const { pid } of rows) {
        const t = cpuMs(pid);
        if (t !== null) times.set(pid, t);
      }
      return rows.length && !times.size ? null : times;
    },
    close: () => client.end(),
  };
}

/** Milliseconds of backend CPU between two samples (per pid, new backends from zero). */
export function pgCpuMsBetween(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}
