/**
 * Requests per second of the gateway with 1, 2 and N worker processes (WEB_CONCURRENCY, issue 30),
 * on PostgreSQL: the built server (`node dist/src/main.js`) on a database this creates and drops,
 * seeded with the demo catalogue, loaded by autocannon with a 10-pet page (category included) for
 * `--duration` seconds after a warm-up, each worker count started afresh, in `--rounds` interleaved
 * rounds; the median of the rounds is reported, and its ratio to 1 worker.
 *
 *   npm run bench:workers [-- --workers 1,2,auto --rounds 2 --duration 8 --connections 32]
 *   BENCH_PG_ADMIN_URL=postgresql://postgres@127.0.0.1:5432/postgres (the default)
 *
 * A benchmark, not a test. The load generator runs on the same machine and takes its share of the
 * cores: on a small host the figure for N workers is what N workers get beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Client } from 'pg';

const root = path.resolve(__dirname, '..', '..');
const QUERY = JSON.stringify({ query: '{ pets(first: 10) { nodes { id name status category { name } } } }' });

async function admin(url: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function run(file: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, file)], {
      cwd: root,
      env: { PATH: process.env.PATH, ...env },
      stdio: 'inherit',
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))));
  });
}

/** Whether the gateway serves with all its workers: /healthz, and the primary's cluster_workers. */
async function serving(url: string, metricsUrl: string, workers: number): Promise<boolean> {
  try {
    if (!(await fetch(`${url}/healthz`)).ok) return false;
    if (workers === 1) return true;
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    return Number(/^cluster_workers (\d+)$/m.exec(text)?.[1]) === workers;
  } catch {
    return false;
  }
}

async function startGateway(workers: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(root, 'dist', 'src', 'main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env, WEB_CONCURRENCY: workers },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const count = workers === 'auto' ? os.availableParallelism() : Number(workers);
  const deadline = Date.now() + 120_000;
  while (!(await serving(`http://127.0.0.1:${env.PORT}`, `http://127.0.0.1:${env.METRICS_PORT}`, count))) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('gateway did not start within 120 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function load(url: string, connections: number, duration: number): Promise<number> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: QUERY,
        connections,
        duration,
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0) {
          return reject(new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`));
        }
        resolve(result.requests.average);
      },
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '1,2,auto' },
      rounds: { type: 'string', default: '2' },
      duration: { type: 'string', default: '8' },
      connections: { type: 'string', default: '32' },
    },
    strict: true,
  });
  const counts = values.workers.split(',').map((w) => w.trim());
  const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const name = `petstore_bench_workers_${process.pid}`;
  const dbUrl = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const port = 4900 + (process.pid % 90);
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(port + 100),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_WINDOW_MS: '1000',
  };
  await admin(adminUrl, `CREATE DATABASE "${name}"`);
  try {
    await run('dist/src/db/migrate.cli.js', env);
    await run('dist/prisma/seed.js', env);
    const rps = new Map<string, number[]>(counts.map((c) => [c, []]));
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const count of counts) {
        const gateway = await startGateway(count, env);
        try {
          await load(`http://127.0.0.1:${port}`, Number(values.connections), 2); // warm-up (JIT, pools)
          const r = await load(`http://127.0.0.1:${port}`, Number(values.connections), Number(values.duration));
          rps.get(count)!.push(r);
          console.error(`round ${round}: WEB_CONCURRENCY=${count}: ${r.toFixed(0)} req/s`);
        } finally {
          await stop(gateway);
        }
      }
    }
    const base = median(rps.get(counts[0]!)!);
    console.log(
      `\nmachine: ${os.availableParallelism()} CPUs available (auto = ${os.availableParallelism()}), load generator on the same machine`,
    );
    console.log('| WEB_CONCURRENCY | req/s (median) | rounds | vs first |');
    console.log('|---|---|---|---|');
    for (const count of counts) {
      const m = median(rps.get(count)!);
      console.log(
        `| ${count} | ${m.toFixed(0)} | ${rps
          .get(count)!
          .map((r) => r.toFixed(0))
          .join(', ')} | ${(m / base).toFixed(2)}x |`,
      );
    }
  } finally {
    await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
