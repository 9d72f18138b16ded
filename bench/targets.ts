/**
 * The targets, each a child process of its own so that CPU time and peak memory are per server:
 * T0 (bench/t0-server.ts), T1 (bench/t1-server.ts), T2 the peer (PostGraphile, peer.ts) and T3, the
 * gateway as shipped (`node dist/src/main.js`, configured only through its environment). Every target has the agent preloaded
 * (agent.ts: statement counter, CPU time, exit with the runner).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { projectRoot } from '../src/config';
import { imageNodeOptionsOf } from '../test/helpers/image-env';
import type { AgentReply } from './protocol';

export type TargetId = 'T0' | 'T1' | 'T2' | 'T3' | 'T3base';
export type DbKind = 'postgres' | 'pglite';

export interface TargetSpec {
  id: TargetId;
  title: string;
  script: string;
  /** The peer (T2): its own schema and documents (peer.ts), its own Node, PostgreSQL only. */
  peer?: boolean;
  /** Environment of its own. */
  env?: Record<string, string>;
  /** Only these workloads. */
  workloads?: string[];
  /** Runs from the checkout `--baseline DIR` names (its own build, migrations and node_modules). */
  baseline?: boolean;
}

/**
 * The checkout T3base runs (`--baseline DIR`, options.ts): an earlier build of this gateway, so that
 * one lever's A/B figures come from one sitting, both sides measured alike.
 */
export const baseline: { dir: string | null } = { dir: null };

export const TARGETS: TargetSpec[] = [
  {
    id: 'T0',
    title: 'limit: Fastify + pg, hand-written SQL',
    script: 'dist/bench/t0-server.js',
    // BENCH_T0_BURN_US: busy CPU per GraphQL request (a control; t0-server.ts), 0 by default.
    env: { T0_BURN_US: process.env.BENCH_T0_BURN_US ?? '0' },
  },
  { id: 'T1', title: 'mercurius + graphql-jit, same schema/Prisma/DataLoaders', script: 'dist/bench/t1-server.js' },
  { id: 'T2', title: 'PostGraphile v5 (amber preset), Node 22+', script: 'bench/peer/server.mjs', peer: true },
  { id: 'T3', title: 'this gateway as shipped', script: 'dist/src/main.js' },
  {
    id: 'T3base',
    title: 'this gateway at an earlier build (--baseline DIR), for A/B figures',
    script: 'dist/src/main.js',
    baseline: true,
  },
];

/** Whether a target is asked a workload at all (WG: T3, T3base and T2, never T0 or T1). */
export function offers(target: TargetId, workload: { id: string; targets?: string[] }): boolean {
  const spec = TARGETS.find((t) => t.id === target)!;
  return (
    (!spec.workloads || spec.workloads.includes(workload.id)) &&
    (!workload.targets || workload.targets.includes(target))
  );
}

export interface Stats {
  statements: number;
  cpuMicros: number;
}

export interface Target {
  id: TargetId;
  db: DbKind;
  url: string;
  pid: number;
  stats(): Promise<Stats>;
  /** Peak resident set (VmHWM) in MiB since start or the last `resetPeak`. */
  peakRssMb(): number;
  /** Current resident set (VmRSS) in MiB. */
  rssMb(): number;
  /** Resets VmHWM (Linux clear_refs 5), so each measurement reports its own peak. */
  resetPeak(): void;
  stop(): Promise<void>;
}

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

/** The environment the checkout `root`'s container image sets for the gateway: its NODE_OPTIONS. */
function imageEnv(root: string): Record<string, string> {
  const options = imageNodeOptionsOf(root);
  return options === null ? {} : { NODE_OPTIONS: options };
}

function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

export async function startTarget(
  id: TargetId,
  db: DbKind,
  dbEnv: Record<string, string>,
  extraEnv: Record<string, string> = {},
  execPath: string = process.execPath,
): Promise<Target> {
  const spec = TARGETS.find((t) => t.id === id)!;
  const root = spec.baseline ? baseline.dir! : projectRoot;
  const port = await freePort();
  const child: ChildProcess = spawn(
    execPath,
    ['-r', path.join(projectRoot, 'dist', 'bench', 'agent.js'), path.join(root, spec.script)],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        // Request logging off for every target alike (pino at info writes two lines per request).
        LOG_LEVEL: 'warn',
        BENCH_DB_KIND: db,
        // The gateway runs as its image runs it: with the image's NODE_OPTIONS (its V8 heap
        // settings), read from that checkout's Dockerfile (none: an earlier build, as it shipped).
        ...(spec.script === 'dist/src/main.js' ? imageEnv(root) : {}),
        ...spec.env,
        ...dbEnv,
        ...extraEnv,
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${id} (${db}) exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${id} (${db}) did not start within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  let seq = 0;
  const pending = new Map<number, (reply: AgentReply) => void>();
  child.on('message', (reply: AgentReply) => {
    pending.get(reply.seq)?.(reply);
    pending.delete(reply.seq);
  });
  const pid = child.pid!;
  return {
    id,
    db,
    url,
    pid,
    stats: () =>
      new Promise<Stats>((resolve, reject) => {
        const n = ++seq;
        const timer = setTimeout(() => reject(new Error(`${id}: no stats from the agent`)), 5000);
        pending.set(n, (r) => {
          clearTimeout(timer);
          resolve({ statements: r.statements, cpuMicros: r.cpuMicros });
        });
        child.send({ type: 'stats', seq: n });
      }),
    peakRssMb: () => procStatusMb(pid, 'VmHWM'),
    rssMb: () => procStatusMb(pid, 'VmRSS'),
    resetPeak: () => {
      try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      } catch {
        // not Linux, or not allowed: the peak then covers the process's whole life
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
