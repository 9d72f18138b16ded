/**
 * The CPU of trusted documents (issue 21): W2 (a 50-pet page with category and inventory) on T3 (the
 * gateway as shipped) over PGlite, against two gateway processes side by side: TRUSTED_DOCUMENTS=off
 * with the document sent in full, and TRUSTED_DOCUMENTS=allow with W2 in the list, sent by hash
 * (`documentId`) and in full. Each process has its own seeded data directory (PGlite is
 * single-process); the variants run one after the other in interleaved rounds. Reports req/s, p50
 * and CPU-ms per request of the server process, and the ratio to `off`.
 *
 * `npm run bench:trusted [-- --rounds N --duration S --connections N]`. Not a test.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { createApiKey, DATA, seedPglite } from './seed';
import { startTarget, type Target } from './targets';
import { graphqlBody, W2_PAGE, W2_QUERY, type RequestSpec } from './workloads';

/**
 * CPU time of a process from /proc (user + system, in clock ticks of 10 ms): read here rather than
 * asked of the agent over IPC, whose answer can miss its 5 s deadline on a machine this loaded.
 */
function cpuMicros(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const W2_HASH = crypto.createHash('sha256').update(W2_QUERY).digest('hex');

interface Variant {
  name: string;
  target: 'off' | 'allow';
  request: RequestSpec;
}

const VARIANTS: Variant[] = [
  {
    name: 'off, full document',
    target: 'off',
    request: { method: 'POST', path: '/graphql', body: graphqlBody(W2_QUERY, { first: W2_PAGE }) },
  },
  {
    name: 'allow, by documentId',
    target: 'allow',
    request: {
      method: 'POST',
      path: '/graphql',
      body: JSON.stringify({ documentId: `sha256:${W2_HASH}`, variables: { first: W2_PAGE } }),
    },
  },
  {
    name: 'allow, full document (listed)',
    target: 'allow',
    request: { method: 'POST', path: '/graphql', body: graphqlBody(W2_QUERY, { first: W2_PAGE }) },
  },
];

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
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-trusted-'));
  const manifest = path.join(tmp, 'persisted-documents.json');
  fs.writeFileSync(manifest, JSON.stringify({ [`sha256:${W2_HASH}`]: W2_QUERY }));
  const targets = new Map<string, { target: Target; auth: Record<string, string> }>();
  try {
    for (const mode of ['off', 'allow'] as const) {
      const dataDir = path.join(tmp, `pglite-${mode}`);
      await seedPglite(dataDir);
      const key = createApiKey({ PGLITE_DATA_DIR: dataDir });
      const target = await startTarget(
        'T3',
        'pglite',
        { PGLITE_DATA_DIR: dataDir },
        {
          RATE_LIMIT_MAX: '10000000',
          RATE_LIMIT_WINDOW_MS: '1000',
          TRUSTED_DOCUMENTS: mode,
          ...(mode === 'off' ? {} : { TRUSTED_DOCUMENTS_FILE: manifest }),
        },
      );
      targets.set(mode, { target, auth: key.key ? { authorization: `Bearer ${key.key}` } : {} });
    }
    const load = (v: Variant, durationSec: number) => {
      const { target, auth } = targets.get(v.target)!;
      return runLoad({
        url: target.url,
        workload: 'W2',
        data: DATA,
        connections: o.connections,
        durationSec,
        headers: auth,
        request: () => v.request,
      });
    };
    for (const v of VARIANTS) await load(v, 1); // warm-up: JIT compilation, caches
    const runs = new Map<string, { rps: number; p50: number; cpu: number }[]>();
    for (let round = 1; round <= o.rounds; round++) {
      for (const v of VARIANTS) {
        const { target } = targets.get(v.target)!;
        const before = cpuMicros(target.pid);
        const r = await load(v, o.durationSec);
        const after = cpuMicros(target.pid);
        const cpu = (after - before) / 1000 / Math.max(1, r.requests);
        console.error(
          `round ${round} ${v.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, ${cpu.toFixed(3)} CPU-ms/req${r.non2xx || r.errors ? `, ${r.non2xx + r.errors} failed` : ''}`,
        );
        // A run that got no answer in time (an overloaded machine) says nothing about CPU per request.
        if (r.ok > 0) runs.set(v.name, [...(runs.get(v.name) ?? []), { rps: r.rps, p50: r.p50, cpu }]);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median((runs.get(VARIANTS[0]!.name) ?? []).map((r) => r.cpu));
    console.log(
      `${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}, Node ${process.version}\n`,
    );
    console.log('| W2 on T3 (PGlite) | req/s | p50 ms | CPU-ms/req | CPU vs off |');
    console.log('|---|---|---|---|---|');
    for (const v of VARIANTS) {
      const rs = runs.get(v.name) ?? [];
      const cpu = median(rs.map((r) => r.cpu));
      console.log(
        `| ${v.name} | ${median(rs.map((r) => r.rps)).toFixed(0)} | ${median(rs.map((r) => r.p50)).toFixed(2)} | ${cpu.toFixed(3)} | ${(cpu / base).toFixed(2)} |`,
      );
    }
  } finally {
    for (const { target } of targets.values()) await target.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
