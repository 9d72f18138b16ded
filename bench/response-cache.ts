/**
 * The response cache (issue 32, docs/caching.md): the public read workloads (W1 `pet(id)` over every
 * pet, W2 a 50-pet page, W6 10 categories with 10 pets each), sent anonymously, on PostgreSQL, to
 * T0 (the hand-written limit, uncached), T3 with RESPONSE_CACHE_TTL_S=0 (uncached), T3 with the
 * in-process response cache (TTL one hour: longer than the run, so that W1's thousand entries,
 * warmed once, are measured as hits rather than refilled at uncached speed when they expire), and T3 with the cache in Redis (when BENCH_REDIS_URL is set), in
 * interleaved rounds. Reports req/s, p50 and CPU-ms per request of the server process, and the
 * cached runs' ratios to T3 uncached and to T0. A separate script so the main benchmark's workloads
 * and tables stay as they are.
 *
 * `npm run bench:response-cache [-- --rounds N --duration S --connections N]`. Environment:
 * BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test), BENCH_REDIS_URL.
 * Not a test.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { DATA, seedPostgres } from './seed';
import { startTarget, type Target, type TargetId } from './targets';
import { requestFor, type WorkloadId } from './workloads';
import { nodeVersion, targetNode } from './node';

/** CPU time of a process from /proc (user + system, clock ticks of 10 ms); see trusted-documents.ts. */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

interface Variant {
  name: string;
  id: TargetId;
  env: Record<string, string>;
}

const WORKLOADS: WorkloadId[] = ['W1', 'W2', 'W6'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
    },
    strict: true,
  });
  const o = {
    rounds: Number(values.rounds),
    durationSec: Number(values.duration),
    connections: Number(values.connections),
  };
  const adminUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.BENCH_REDIS_URL;
  const common = { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' };
  const variants: Variant[] = [
    { name: 'T0 (uncached)', id: 'T0', env: {} },
    { name: 'T3 uncached', id: 'T3', env: { ...common, RESPONSE_CACHE_TTL_S: '0' } },
    { name: 'T3 cached, in process', id: 'T3', env: { ...common, RESPONSE_CACHE_TTL_S: '3600' } },
    ...(redisUrl
      ? [
          {
            name: 'T3 cached, Redis',
            id: 'T3' as const,
            env: {
              ...common,
              RESPONSE_CACHE_TTL_S: '3600',
              REDIS_URL: redisUrl,
              RESPONSE_CACHE_REDIS_PREFIX: `bench-rc-${crypto.randomUUID()}:`,
              RATE_LIMIT_REDIS_PREFIX: `bench-rl-${crypto.randomUUID()}:`,
            },
          },
        ]
      : []),
  ];
  // Every target on Node 24, as the main benchmark runs them (bench/node.ts).
  const node = targetNode('24', (line) => console.error(line));
  const data = await seedPostgres(adminUrl);
  const targets = new Map<string, Target>();
  try {
    // One process at a time holds the CPU: each variant is started, measured and stopped per round
    // would cost a start per run; instead all run, and only one is loaded at any moment.
    for (const v of variants)
      targets.set(v.name, await startTarget(v.id, 'postgres', { DATABASE_URL: data.url }, v.env, node));
    const load = (v: Variant, workload: WorkloadId, durationSec: number) =>
      runLoad({
        url: targets.get(v.name)!.url,
        workload,
        data: DATA,
        connections: o.connections,
        durationSec,
        headers: {},
      });
    // Warm-up: JIT compilation, then every request of W1 (one per pet) once, so that the cached
    // variants measure hits (the steady state of a catalogue read TTL_S seconds long) and not the
    // first minute.
    for (const v of variants) for (const w of WORKLOADS) await load(v, w, 2);
    for (const v of variants) {
      const url = targets.get(v.name)!.url;
      for (let i = 0; i < DATA.pets; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, (_, j) => {
            // node:http, not fetch: fetch adds Accept (part of the cache key) where autocannon sends none.
            const spec = requestFor('W1', i + j, DATA);
            return new Promise<void>((resolve, reject) => {
              const req = http.request(
                `${url}${spec.path}`,
                { method: spec.method, headers: { 'content-type': 'application/json' } },
                (res) => res.resume().on('end', resolve),
              );
              req.on('error', reject);
              req.end(spec.body);
            });
          }),
        );
      }
    }
    const runs = new Map<string, { rps: number; p50: number; cpu: number }[]>();
    for (let round = 1; round <= o.rounds; round++) {
      for (const w of WORKLOADS) {
        for (const v of variants) {
          const pid = targets.get(v.name)!.pid;
          const before = cpuMicros(pid);
          const r = await load(v, w, o.durationSec);
          const cpu = (cpuMicros(pid) - before) / 1000 / Math.max(1, r.requests);
          const failed = r.non2xx + r.errors;
          console.error(
            `round ${round} ${w} ${v.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, ${cpu.toFixed(3)} CPU-ms/req${failed ? `, ${failed} failed (refused)` : ''}`,
          );
          if (failed) continue;
          const key = `${w}|${v.name}`;
          runs.set(key, [...(runs.get(key) ?? []), { rps: r.rps, p50: r.p50, cpu }]);
        }
      }
    }
    const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
    const lines = [
      `${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(
          ' ',
        )}, targets on Node ${nodeVersion(node)}; ${o.rounds} rounds of ${o.durationSec} s, ${o.connections} connections, anonymous requests\n`,
      '| workload | target | req/s | p50 ms | CPU-ms/req | x T3 uncached | x T0 |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const w of WORKLOADS) {
      const rps = (name: string) => median((runs.get(`${w}|${name}`) ?? []).map((r) => r.rps));
      for (const v of variants) {
        const rs = runs.get(`${w}|${v.name}`) ?? [];
        const r = rps(v.name);
        lines.push(
          `| ${w} | ${v.name} | ${r.toFixed(0)} | ${median(rs.map((x) => x.p50)).toFixed(2)} | ${median(rs.map((x) => x.cpu)).toFixed(3)} | ${(r / rps('T3 uncached')).toFixed(2)} | ${(r / rps('T0 (uncached)')).toFixed(2)} |`,
        );
      }
    }
    console.log(lines.join('\n'));
  } finally {
    for (const t of targets.values()) await t.stop();
    await data.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
