/**
 * PostgreSQL's CPU per request: the CPU time (user + system) of the server's backend processes
 * serving the bench database, read from /proc/<pid>/stat around each timed run. The database is the
 * part that does not scale out with more gateway processes, so its cost per request is reported for
 * every target. Only one target is under load at a time; the others' idle backends add nothing.
 *
 * Read from /proc rather than pg_stat_statements: that extension needs shared_preload_libraries (a
 * server restart), and its times leave out parsing, JSON output and the wire protocol. /proc needs the
 * server on this machine (in this PID namespace): where its backends are not there, the figure is
 * null and the report says "–". A backend that exits during a run takes its CPU with it (pools keep
 * their connections during a run, so this is rare); a backend started during a run counts from zero.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Client } from 'pg';

export interface PgCpuSampler {
  /** CPU ticks per backend pid now; null when /proc does not show the backends. */
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

/** utime + stime of a process in clock ticks, or null once it is gone or unreadable. */
function cpuTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of proc(5): utime, stime
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
      const ticks = new Map<number, number>();
      for (const { pid } of rows) {
        const t = cpuTicks(pid);
        if (t !== null) ticks.set(pid, t);
      }
      return rows.length && !ticks.size ? null : ticks;
    },
    close: () => client.end(),
  };
}

/** Milliseconds of backend CPU between two samples (per pid, new backends from zero). */
export function pgCpuMsBetween(before: Map<number, number> | null, after: Map<number, number> | null): number | null {
  if (!before || !after) return null;
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}
