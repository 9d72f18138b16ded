/**
 * `npm run bench:explain`: where PostgreSQL spends its time on each compiled read shape. Seeds the
 * bench's data set into a fresh PostgreSQL database (seed.ts), executes each shape once through the
 * real schema with the read compiler on, captures the statement it sends (capture.ts), and
 * prints `EXPLAIN (ANALYZE, BUFFERS)` of it plus the mean server execution and planning time over
 * repeated EXPLAIN ANALYZE runs, as markdown (bench/notes/explain.md is its output, annotated).
 * pg_stat_statements would give the same per-statement figures, but it needs
 * shared_preload_libraries, which a shared server may not have.
 *
 * Environment: BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test),
 * EXPLAIN_RUNS (default 200), BENCH_SCALE (the data set's size, seed.ts).
 */
import { Client } from 'pg';
import { projectRoot } from '../src/config';
import { captureStatements } from './capture';
import { DATA, seedPostgres } from './seed';
import { SHAPES } from './shapes';

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
  const runs = Number(process.env.EXPLAIN_RUNS ?? 200);
  const data = await seedPostgres(adminUrl);
  const client = new Client({ connectionString: data.url });
  await client.connect();
  try {
    await client.query('ANALYZE');
    const captured = captureStatements(projectRoot, data.url);
    console.log(
      `# EXPLAIN of the compiled read shapes\n\nBench data set (seed.ts: ${DATA.categories} categories, ${DATA.pets} pets, ${DATA.orders} orders), PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version}; mean of ${runs} EXPLAIN ANALYZE runs per statement.\n`,
    );
    for (const shape of SHAPES) {
      const { statements } = captured.find((c) => c.shape === shape.name)!;
      console.log(`## ${shape.name}\n\n\`\`\`graphql\n${shape.query}\n\`\`\`\n\nStatements: ${statements.length}\n`);
      for (const statement of statements) {
        const values = statement.values;
        const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, values);
        let execution = 0;
        let planning = 0;
        for (let i = 0; i < runs; i++) {
          const r = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${statement.text}`, values);
          const [top] = r.rows[0]['QUERY PLAN'] as { 'Execution Time': number; 'Planning Time': number }[];
          execution += top!['Execution Time'];
          planning += top!['Planning Time'];
        }
        console.log(
          `Mean execution ${(execution / runs).toFixed(3)} ms, planning ${(planning / runs).toFixed(3)} ms (unprepared; a prepared statement plans once per connection).\n`,
        );
        console.log('```sql\n' + statement.text + '\n```\n');
        console.log('```\n' + plan.rows.map((row) => row['QUERY PLAN']).join('\n') + '\n```\n');
      }
    }
  } finally {
    await client.end();
    await data.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
