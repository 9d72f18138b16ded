/**
 * `npm run bench:sql-cpu [-- --baseline DIR] [--rounds N] [--runs N]`: PostgreSQL's own CPU per
 * execution of each compiled read shape's statement (bench/shapes.ts), the figure the read
 * compiler's levers move, measured without any gateway, client or network in the way.
 *
 * Seeds the bench's data set into a fresh PostgreSQL database (seed.ts), captures the statements
 * each shape sends through the real schema (the read compiler on) in a child process per checkout
 * (this one, and `--baseline DIR`'s build for an A/B in one sitting: each child loads one build
 * only), then executes each statement as a named prepared statement, as the gateway does, `runs`
 * times on a connection of its own and reads that backend's CPU time from /proc (utime + stime).
 * Rounds interleave the checkouts and shapes. Reported: the lowest of the rounds (other work on the
 * machine only ever adds CPU time: scheduling, caches), with the median beside it.
 * Clock ticks are 10 ms, so each measurement runs until it has taken at least half a second of CPU.
 *
 * Environment: BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test),
 * BENCH_SCALE (the data set's size, seed.ts).
 * Linux only (/proc); PostgreSQL on this machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { projectRoot } from '../src/config';
import { median } from './records';
import { captureStatements, sessionOptionsOf, type CapturedShape } from './capture';
import { DATA, seedPostgres } from './seed';
import { SHAPES } from './shapes';

/** CPU time (ms) the process `pid` has used, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function cpuPerExecution(
  url: string,
  options: string | undefined,
  text: string,
  values: unknown[],
  runs: number,
): Promise<number> {
  const client = new Client({ connectionString: url, ...(options ? { options } : {}) });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const query = { name: 'measured', text, values };
    for (let i = 0; i < 50; i++) await client.query(query); // prepared, plan cache settled
    // At least `runs` executions and half a second of the backend's CPU (ticks are 10 ms).
    const before = cpuMs(rows[0]!.pid);
    let done = 0;
    while (done < runs || cpuMs(rows[0]!.pid) - before < 500) {
      for (let i = 0; i < 100; i++) await client.query(query);
      done += 100;
    }
    return (cpuMs(rows[0]!.pid) - before) / done;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { baseline: { type: 'string' }, rounds: { type: 'string' }, runs: { type: 'string' } },
  });
  const rounds = Number(values.rounds ?? 5);
  const runs = Number(values.runs ?? 1000);
  const adminUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const data = await seedPostgres(adminUrl);
  try {
    const admin = new Client({ connectionString: data.url });
    await admin.connect();
    await admin.query('ANALYZE');
    await admin.end();
    const checkout = (name: string, root: string) => ({
      name,
      shapes: captureStatements(root, data.url),
      options: sessionOptionsOf(root),
    });
    const builds: { name: string; shapes: CapturedShape[]; options: string | undefined }[] = [
      checkout('this build', projectRoot),
    ];
    if (values.baseline) builds.push(checkout('baseline', path.resolve(values.baseline)));
    const samples = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const shape of SHAPES) {
        for (const build of round % 2 ? [...builds].reverse() : builds) {
          const captured = build.shapes.find((c) => c.shape === shape.name)!;
          let ms = 0;
          for (const s of captured.statements)
            ms += await cpuPerExecution(data.url, build.options, s.text, s.values, runs);
          const key = `${shape.name}|${build.name}`;
          samples.set(key, [...(samples.get(key) ?? []), ms]);
        }
      }
    }
    console.log(
      `PostgreSQL CPU per request (ms): lowest (median) of ${rounds} rounds of at least ${runs} prepared executions (and 0.5 s of CPU) each; data set ${DATA.categories} categories, ${DATA.pets} pets, ${DATA.orders} orders (BENCH_SCALE)\n`,
    );
    console.log(`| shape | statements | this build |${values.baseline ? ' baseline | ratio |' : ''}`);
    console.log(`|---|---|---|${values.baseline ? '---|---|' : ''}`);
    for (const shape of SHAPES) {
      const fmt = (xs: number[]) => `${Math.min(...xs).toFixed(3)} (${median(xs).toFixed(3)})`;
      const mineAll = samples.get(`${shape.name}|this build`)!;
      const mine = Math.min(...mineAll);
      const count = builds[0]!.shapes.find((c) => c.shape === shape.name)!.statements.length;
      const baseAll = values.baseline ? samples.get(`${shape.name}|baseline`)! : null;
      const base = baseAll && Math.min(...baseAll);
      console.log(
        `| ${shape.name} | ${count} | ${fmt(mineAll)} |${baseAll ? ` ${fmt(baseAll)} | ${(mine / base!).toFixed(2)} |` : ''}`,
      );
    }
  } finally {
    await data.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
