/**
 * WG, the generated workload: read shapes no one wrote for the bench, from the same seeded generator
 * as test/graphql/generated-reads.test.ts (test/helpers/query-generator.ts). Per database, once the
 * targets are up: ids, names and cursors are learned from T3 through first queries, `--generated N`
 * reads are generated (seed BENCH_GEN_SEED, default fixed), and those T3 answers without an error are
 * kept (the generator makes no invalid argument here, but a generated cursor may be refused).
 *
 * When T2 (PostGraphile) is a target, each kept shape is translated into its schema
 * (peer-translate.ts) where it can be asked with the same meaning, and both answers are compared
 * (canonicalAnswer: the same rows in the same order with the same values). A shape it cannot translate
 * is skipped and counted by reason; one whose answers differ is dropped and counted as "differs"
 * (the first few are logged with both documents). WG is then the shapes both answer alike: the load
 * rotates through them on T3 and T2, and generated-compare.ts measures each shape on both. Without
 * T2, WG is every kept shape, on T3 (and T3base). The statement count of T3 (and T3base) always covers
 * every kept shape (the goal: one statement per root field, for every shape).
 */
import { loadPublicSchema } from '../test/helpers/query-generator';
import { createReadGenerator, operationSeed, primeReadPool, type ExecuteRead } from '../test/helpers/query-generator';
import { canonicalAnswer, fetchPeerSchema, translateToPeer, type PeerRead } from './peer-translate';
import { log } from './records';
import type { Target } from './targets';
import { graphqlBody, setGeneratedRequests, type RequestSpec } from './workloads';

const DEFAULT_SEED = 20_261_123;
/** Differing shapes printed to the log in full (the rest are counted). */
const DIFFERS_SHOWN = 5;

/** One kept shape: T3's request, and T2's when it answers the shape alike. */
export interface GeneratedShape {
  /** Index of the operation in the seeded run (`operationSeed(seed, index)` replays it). */
  index: number;
  query: string;
  variables: Record<string, unknown>;
  rootFields: string[];
  spec: RequestSpec;
  peer?: PeerRead & { spec: RequestSpec };
}

/** What became of the shapes on T2. */
export interface PeerShapes {
  /** Kept shapes translated and answered alike: the shapes WG runs on T3 and T2. */
  same: number;
  /** Translated, but the answers differ (dropped). */
  differs: number;
  /** Not translated, by reason. */
  skipped: Record<string, number>;
  /** The first differing shapes: both documents and where the answers part. */
  differing: {
    index: number;
    query: string;
    variables: unknown;
    peerQuery: string;
    peerVariables: unknown;
    detail: string;
  }[];
}

export interface GeneratedWorkload {
  seed: number;
  generated: number;
  kept: number;
  /** Distinct root fields over the kept shapes (every Query field, over enough shapes). */
  rootFieldsCovered: string[];
  /** The T2 side, when T2 is a target. */
  peer?: PeerShapes;
}

let kept: GeneratedShape[] = [];
/** The shapes WG's load and checks rotate through (every kept shape, or those T2 answers alike). */
let load: GeneratedShape[] = [];

/** The shapes WG's load rotates through, T2's document in `peer` (set by prepareGenerated). */
export const generatedShapes = (): GeneratedShape[] => load;

/** T2's i-th WG request (peer.ts). */
export function peerGeneratedRequest(i: number): RequestSpec {
  if (!load.length) throw new Error('WG: no generated requests (bench/generated.ts)');
  const peer = load[i % load.length]!.peer;
  if (!peer) throw new Error('WG: T2 has no translation of this shape');
  return peer.spec;
}

/** An answer to WG's i-th request in the form compared across the schemas (peer-translate.ts). */
export const generatedCanonical = (i: number, body: string): string =>
  canonicalAnswer(body, load[i % load.length]?.peer?.kinds ?? {});

/**
 * The shapes the counting pass sends one by one, with their root fields: every kept shape for the
 * gateway, WG's shapes for the peer.
 */
export const countingShapes = (peer: boolean): { spec: RequestSpec; roots: number }[] =>
  (peer ? load : kept).map((s) => ({ spec: peer ? s.peer!.spec : s.spec, roots: s.rootFields.length }));

type Answer = { status: number; body: string };

async function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: await res.text() };
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const around = (x: string) => JSON.stringify(x.slice(Math.max(0, i - 60), i + 80));
  return `at character ${i}: T3 ${around(a)} vs T2 ${around(b)}`;
}

/** Generates WG's requests against `t3` (and translates them for `t2`) and installs them. */
export async function prepareGenerated(
  t3: Target,
  headers: Record<string, string>,
  count: number,
  t2?: Target,
): Promise<GeneratedWorkload> {
  const seed = Number(process.env.BENCH_GEN_SEED ?? DEFAULT_SEED) >>> 0;
  const execute: ExecuteRead = async (query, variables) =>
    JSON.parse((await post(t3.url, headers, JSON.stringify({ query, variables }))).body) as {
      data?: unknown;
      errors?: unknown[];
    };
  const schema = loadPublicSchema();
  const generator = createReadGenerator({ schema, pool: await primeReadPool(execute), invalidRate: 0 });
  const peerSchema = t2 ? await fetchPeerSchema(t2.url) : null;
  const peer: PeerShapes = { same: 0, differs: 0, skipped: {}, differing: [] };
  kept = [];
  const covered = new Set<string>();
  for (let i = 0; i < count; i++) {
    const read = generator.generate(operationSeed(seed, i));
    const spec: RequestSpec = { method: 'POST', path: '/graphql', body: graphqlBody(read.query, read.variables) };
    const answer = await post(t3.url, headers, spec.body!);
    if (answer.status !== 200 || answer.body.includes('"errors":')) continue;
    const shape: GeneratedShape = {
      index: i,
      query: read.query,
      variables: read.variables,
      rootFields: read.rootFields,
      spec,
    };
    kept.push(shape);
    for (const f of read.rootFields) covered.add(f);
    if (!t2 || !peerSchema) continue;

    const translation = translateToPeer(schema, peerSchema, read.query, read.variables);
    if (!translation.ok) {
      peer.skipped[translation.reason] = (peer.skipped[translation.reason] ?? 0) + 1;
      continue;
    }
    const t = translation.read;
    const peerSpec: RequestSpec = { method: 'POST', path: '/graphql', body: graphqlBody(t.query, t.variables) };
    const theirs = await post(t2.url, {}, peerSpec.body!);
    const mine = canonicalAnswer(answer.body, t.kinds);
    let detail: string | null = null;
    if (theirs.status !== 200) detail = `T2 answered HTTP ${theirs.status}: ${theirs.body.slice(0, 300)}`;
    else if (theirs.body.includes('"errors":')) detail = `T2 answered an error: ${theirs.body.slice(0, 300)}`;
    else {
      const other = canonicalAnswer(theirs.body, t.kinds);
      if (other !== mine) detail = firstDifference(mine, other);
    }
    if (detail) {
      peer.differs++;
      if (peer.differing.length < DIFFERS_SHOWN) {
        const example = {
          index: i,
          query: read.query,
          variables: read.variables,
          peerQuery: t.query,
          peerVariables: t.variables,
          detail,
        };
        peer.differing.push(example);
        log(
          `WG: shape #${i} answered differently by T2 (dropped): ${detail}\n  T3: ${read.query.replace(/\n/g, ' ')} ${JSON.stringify(read.variables)}\n` +
            `  T2: ${t.query.replace(/\s+/g, ' ')} ${JSON.stringify(t.variables)}`,
        );
      }
      continue;
    }
    peer.same++;
    shape.peer = { ...t, spec: peerSpec };
  }
  load = t2 ? kept.filter((s) => s.peer) : kept;
  setGeneratedRequests(load.map((s) => s.spec));
  log(`WG: ${kept.length} of ${count} generated shapes answered without error (seed ${seed})`);
  if (t2) {
    const skipped = Object.values(peer.skipped).reduce((a, b) => a + b, 0);
    log(
      `WG: T2 answers ${peer.same} of them alike; ${skipped} not translatable, ${peer.differs} answered differently` +
        Object.entries(peer.skipped)
          .sort((a, b) => b[1] - a[1])
          .map(([reason, n]) => `\n  skipped ${n}: ${reason}`)
          .join(''),
    );
  }
  return {
    seed,
    generated: count,
    kept: kept.length,
    rootFieldsCovered: [...covered].sort(),
    ...(t2 ? { peer } : {}),
  };
}
