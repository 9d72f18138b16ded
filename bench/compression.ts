/**
 * The cost of response compression (issue 11 item 3), on its own so it stays out of the main
 * benchmark's tables: W2 (a 50-pet page, ~12 kB of JSON) on T3 (the gateway as shipped) over PGlite,
 * with `Accept-Encoding: br, gzip` (br chosen), `gzip` alone, and none, in interleaved rounds.
 * Reports req/s, p50, CPU-ms per request of the server process, and bytes per answer.
 *
 * `npm run bench:compression [-- --rounds N --duration S --connections N]`. Not a test.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { createApiKey, DATA, seedPglite } from './seed';
import { startTarget, type Target } from './targets';
import { requestFor } from './workloads';

export interface CompressionRow {
  encoding: string;
  rps: number;
  p50: number;
  cpuMsPerReq: number;
  bytes: number;
}

const VARIANTS = [
  { encoding: 'none', headers: {} },
  { encoding: 'gzip', headers: { 'accept-encoding': 'gzip' } },
  { encoding: 'br', headers: { 'accept-encoding': 'br, gzip' } },
] as const;

/** Bytes of one W2 answer on the wire with these headers. */
function answerBytes(url: string, headers: Record<string, string>): Promise<number> {
  const spec = requestFor('W2', 0, DATA);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}${spec.path}`,
      { method: spec.method, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      },
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** Medians over `rounds` of each variant, run one after the other in every round. */
export async function measureCompression(
  target: Target,
  auth: Record<string, string>,
  o: { rounds: number; durationSec: number; connections: number },
): Promise<CompressionRow[]> {
  const runs = new Map<string, { rps: number; p50: number; cpu: number }[]>();
  for (const v of VARIANTS)
    await runLoad({
      url: target.url,
      workload: 'W2',
      data: DATA,
      connections: o.connections,
      durationSec: 1,
      headers: { ...auth, ...v.headers },
    });
  for (let round = 1; round <= o.rounds; round++) {
    for (const v of VARIANTS) {
      const before = await target.stats();
      const r = await runLoad({
        url: target.url,
        workload: 'W2',
        data: DATA,
        connections: o.connections,
        durationSec: o.durationSec,
        headers: { ...auth, ...v.headers },
      });
      const after = await target.stats();
      const cpu = (after.cpuMicros - before.cpuMicros) / 1000 / Math.max(1, r.requests);
      console.error(
        `compression round ${round} ${v.encoding}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, ${cpu.toFixed(3)} CPU-ms/req${r.non2xx || r.errors ? `, ${r.non2xx + r.errors} failed` : ''}`,
      );
      runs.set(v.encoding, [...(runs.get(v.encoding) ?? []), { rps: r.rps, p50: r.p50, cpu }]);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rows: CompressionRow[] = [];
  for (const v of VARIANTS) {
    const rs = runs.get(v.encoding)!;
    rows.push({
      encoding: v.encoding,
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      cpuMsPerReq: median(rs.map((r) => r.cpu)),
      bytes: await answerBytes(target.url, { ...auth, ...v.headers }),
    });
  }
  return rows;
}

export function compressionTable(rows: CompressionRow[]): string {
  const lines = [
    '| W2 on T3 (PGlite), Accept-Encoding | req/s | p50 ms | CPU-ms/req | bytes/answer |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.encoding} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.cpuMsPerReq.toFixed(3)} | ${r.bytes} |`,
    );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
    },
    strict: true,
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compression-'));
  const dataDir = path.join(tmp, 'pglite');
  try {
    await seedPglite(dataDir);
    const key = createApiKey({ PGLITE_DATA_DIR: dataDir });
    const auth: Record<string, string> = key.key ? { authorization: `Bearer ${key.key}` } : {};
    const target = await startTarget(
      'T3',
      'pglite',
      { PGLITE_DATA_DIR: dataDir },
      { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' },
    );
    try {
      const rows = await measureCompression(target, auth, {
        rounds: Number(values.rounds),
        durationSec: Number(values.duration),
        connections: Number(values.connections),
      });
      console.log(
        `${os.cpus().length} CPUs, load average ${os
          .loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}, Node ${process.version}\n`,
      );
      console.log(compressionTable(rows));
    } finally {
      await target.stop();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
