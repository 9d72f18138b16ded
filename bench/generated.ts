/**
 * WG, the generated workload: read shapes no one wrote for the bench, from the same seeded generator
 * as test/graphql/generated-reads.test.ts (test/helpers/query-generator.ts). Per database, once the
 * targets are up: ids, names and cursors are learned from T3 through first queries, `--generated N`
 * reads are generated (seed BENCH_GEN_SEED, default fixed), and those T3 answers without an error are
 * kept (the generator makes no invalid argument here, but a generated cursor may be refused); the load
 * rotates through them (T3 only: test/graphql/generated-reads.test.ts holds the answers against an
 * independent reader), and the report gives statements per request (their distribution, and per root
 * field) and server and PostgreSQL CPU per request.
 */
import { createReadGenerator, operationSeed, primeReadPool, type ExecuteRead } from '../test/helpers/query-generator';
import { log } from './records';
import type { Target } from './targets';
import { graphqlBody, setGeneratedRequests, type RequestSpec } from './workloads';

const DEFAULT_SEED = 20_261_123;

/** Root fields of each kept shape, by WG request index (statements per root field). */
let rootFields: number[] = [];

/** The number of root fields of WG's i-th request. */
export const generatedRootFields = (i: number): number => rootFields[i % rootFields.length] ?? 1;

export interface GeneratedWorkload {
  seed: number;
  generated: number;
  kept: number;
  /** Distinct root fields over the kept shapes (every Query field, over enough shapes). */
  rootFieldsCovered: string[];
}

/** Generates WG's requests against `t3` and installs them (setGeneratedRequests). */
export async function prepareGenerated(
  t3: Target,
  headers: Record<string, string>,
  count: number,
): Promise<GeneratedWorkload> {
  const seed = Number(process.env.BENCH_GEN_SEED ?? DEFAULT_SEED) >>> 0;
  const execute: ExecuteRead = async (query, variables) => {
    const res = await fetch(`${t3.url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: unknown; errors?: unknown[] };
  };
  const generator = createReadGenerator({ pool: await primeReadPool(execute), invalidRate: 0 });
  const kept: RequestSpec[] = [];
  const roots: number[] = [];
  const covered = new Set<string>();
  for (let i = 0; i < count; i++) {
    const read = generator.generate(operationSeed(seed, i));
    const answer = await execute(read.query, read.variables);
    if (answer.errors?.length) continue;
    kept.push({ method: 'POST', path: '/graphql', body: graphqlBody(read.query, read.variables) });
    roots.push(read.rootFields.length);
    for (const f of read.rootFields) covered.add(f);
  }
  setGeneratedRequests(kept);
  rootFields = roots;
  log(`WG: ${kept.length} of ${count} generated shapes answered without error (seed ${seed})`);
  return { seed, generated: count, kept: kept.length, rootFieldsCovered: [...covered].sort() };
}
