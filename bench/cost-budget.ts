/**
 * CPU per request of fair use by cost (RATE_LIMIT_COST_BUDGET, issue 22) against request counting,
 * on W2 (a 50-pet page with categories and stock) on T3 (the gateway as shipped) over PGlite: two
 * gateways on the same data, one counting requests, one charging points (in memory; budgets large
 * enough never to refuse), measured in interleaved rounds. Reports req/s, p50 and the server
 * process's CPU-ms per request, and the ratio.
 *
 * `npm run bench:cost-budget [-- --rounds N --duration S --connections N]`. Not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { createApiKey, DATA, seedPglite } from './seed';
import { startTarget, type Target } from './targets';

const LIMITS = { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' };
const VARIANTS = [
  { name: 'requests counted', env: LIMITS },
  { name: 'cost charged', env: { ...LIMITS, GRAPHQL_MAX_COST: '20000', RATE_LIMIT_COST_BUDGET: '1000000000000' } },
] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '8' },
    },
    strict: true,
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cost-'));
  const targets: Target[] = [];
  try {
    const dirs = VARIANTS.map((_, i) => path.join(tmp, `pglite-${i}`));
    for (const dir of dirs) await seedPglite(dir);
    const auth = dirs.map((dir): Record<string, string> => {
      const key = createApiKey({ PGLITE_DATA_DIR: dir });
      return key.key ? { authorization: `Bearer ${key.key}` } : {};
    });
    for (const [i, v] of VARIANTS.entries())
      targets.push(await startTarget('T3', 'pglite', { PGLITE_DATA_DIR: dirs[i]! }, v.env));
    const load = (i: number, durationSec: number) =>
      runLoad({
        url: targets[i]!.url,
        workload: 'W2',
        data: DATA,
        connections: Number(values.connections),
        durationSec,
        headers: auth[i]!,
      });
    for (let i = 0; i < VARIANTS.length; i++) await load(i, 1); // warm-up
    const cpu: number[][] = VARIANTS.map(() => []);
    const rps: number[][] = VARIANTS.map(() => []);
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (let i = 0; i < VARIANTS.length; i++) {
        const before = await targets[i]!.stats();
        const r = await load(i, Number(values.duration));
        const after = await targets[i]!.stats();
        const perReq = (after.cpuMicros - before.cpuMicros) / 1000 / Math.max(1, r.requests);
        cpu[i]!.push(perReq);
        rps[i]!.push(r.rps);
        console.error(
          `round ${round} ${VARIANTS[i]!.name}: ${r.rps.toFixed(0)} req/s, ${perReq.toFixed(3)} CPU-ms/req${r.non2xx || r.errors ? `, ${r.non2xx + r.errors} failed` : ''}`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}\n`,
    );
    console.log('| W2 on T3 (PGlite) | req/s | CPU-ms/req |\n|---|---|---|');
    for (const [i, v] of VARIANTS.entries())
      console.log(`| ${v.name} | ${median(rps[i]!).toFixed(0)} | ${median(cpu[i]!).toFixed(3)} |`);
    console.log(`\nCPU per request, cost / requests: ${(median(cpu[1]!) / median(cpu[0]!)).toFixed(3)}`);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
