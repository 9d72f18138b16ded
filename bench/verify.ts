/**
 * Before any timing: every target's answers are compared with T3's (verify), and the SQL statements
 * per request are counted in an untimed pass through the agent (countPass).
 */
import { asGatewayAnswer, peerRequestFor } from './peer';
import { pgCpuMsBetween, type PgCpuSampler } from './pg-cpu';
import { countingShapes, generatedCanonical } from './generated';
import type { SqlCount, Verification } from './records';
import { DATA } from './seed';
import { offers, TARGETS, type DbKind, type Target, type TargetId } from './targets';
import {
  generatedRequestCount,
  graphqlBody,
  requestFor,
  W2_QUERY,
  W3_QUERY,
  WORKLOADS,
  type RequestSpec,
  type WorkloadId,
} from './workloads';

export const isPeer = (target: Pick<Target, 'id'>) => TARGETS.find((t) => t.id === target.id)?.peer === true;

/** The i-th request of a workload as this target is asked it, or null when the target does not offer it. */
export function requestOf(target: Pick<Target, 'id'>, workload: WorkloadId, i: number): RequestSpec | null {
  if (
    !offers(
      target.id,
      WORKLOADS.find((w) => w.id === workload)!,
    )
  )
    return null;
  return isPeer(target) ? peerRequestFor(workload, i, DATA) : requestFor(workload, i, DATA);
}

/** Sends one request of a workload; the answer's status and text. */
export async function send(target: Target, spec: RequestSpec, headers: Record<string, string>) {
  const res = await fetch(target.url + spec.path, {
    method: spec.method,
    headers: spec.body ? { ...headers, 'content-type': 'application/json' } : headers,
    body: spec.body,
  });
  return { status: res.status, body: await res.text() };
}

const SAMPLE_PETS = [1, 2, 3, 4, 10, 110, 500, 999, 1000];

/** Indexes of the requests compared before timing. */
function samplesFor(workload: WorkloadId): number[] {
  if (workload === 'W1' || workload === 'W5') return SAMPLE_PETS.map((id) => id - 1);
  if (workload === 'WG') return [...Array(generatedRequestCount()).keys()]; // every shape: each is its own
  return [0];
}

/**
 * The JSON text of an answer: one trailing newline (Apollo ends its bodies with one, mercurius does
 * not) is not part of it. Ids of created orders (W4) differ between targets; everything else must be
 * the same bytes.
 */
const normalise = (workload: WorkloadId, body: string) => {
  const json = body.endsWith('\n') ? body.slice(0, -1) : body;
  return workload === 'W4' || workload === 'W7' ? json.replace(/"id":"\d+"/g, '"id":"#"') : json;
};

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const around = (x: string) => JSON.stringify(x.slice(Math.max(0, i - 40), i + 60));
  return `at byte ${i} of ${a.length}/${b.length}: T3 ${around(a)} vs ${around(b)}`;
}

/** Why T3 cannot serve the workload on this build, or null when it answered properly. */
function unavailableReason(workload: WorkloadId, answer: { status: number; body: string }): string | null {
  if (workload === 'W4' && /Cannot query field \\?"placeOrder\\?"/.test(answer.body)) {
    return 'not available on this build: placeOrder is not in the schema (issue 3)';
  }
  // Pet 1 exists, so a 404 means that no route serves the path.
  if (workload === 'W5' && answer.status === 404) {
    return 'not available on this build: no GET /pets/{petId} route (issue 4)';
  }
  if (answer.status !== 200) return `T3 answered HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
  if (workload !== 'W5' && answer.body.includes('"errors"'))
    return `T3 answered an error: ${answer.body.slice(0, 300)}`;
  return null;
}

/**
 * Compares every target's answers to a workload's sample requests with T3's (which must hold no
 * error): a target is timed on a workload only when they match.
 */
export async function verify(
  db: DbKind,
  workload: WorkloadId,
  targets: Target[],
  headers: Record<string, string>,
): Promise<Verification> {
  const samples = samplesFor(workload);
  const t3 = targets.find((t) => t.id === 'T3')!;
  const reference: string[] = [];
  for (const i of samples) {
    const answer = await send(t3, requestFor(workload, i, DATA), headers);
    const reason = unavailableReason(workload, answer);
    if (reason) return { db, workload, available: false, reason, matched: [], mismatches: [], samples: samples.length };
    reference.push(normalise(workload, answer.body));
  }
  const matched: TargetId[] = ['T3'];
  const mismatches: Verification['mismatches'] = [];
  for (const target of targets.filter((t) => t.id !== 'T3' && requestOf(t, workload, 0))) {
    let detail: string | null = null;
    for (const [n, i] of samples.entries()) {
      const answer = await send(target, requestOf(target, workload, i)!, headers);
      let body = normalise(workload, answer.body);
      let expected = reference[n]!;
      // The peer's schema is its own: the same rows in the same order, under its field names.
      if (isPeer(target) && answer.status === 200)
        [body, expected] =
          workload === 'WG'
            ? [generatedCanonical(i, body), generatedCanonical(i, expected)]
            : [asGatewayAnswer(body), asGatewayAnswer(expected)];
      if (answer.status !== 200) detail = `HTTP ${answer.status}: ${answer.body.slice(0, 200)}`;
      else if (body.includes('"errors":')) detail = `answered an error: ${body.slice(0, 300)}`;
      else if (body !== expected) detail = firstDifference(expected, body);
      if (detail) break;
    }
    if (detail) mismatches.push({ target: target.id, detail });
    else matched.push(target.id);
  }
  return { db, workload, available: true, matched, mismatches, samples: samples.length };
}

async function countStatements(target: Target, specs: RequestSpec[], headers: Record<string, string>): Promise<number> {
  const before = await target.stats();
  for (const spec of specs) await send(target, spec, headers);
  const after = await target.stats();
  return (after.statements - before.statements) / specs.length;
}

/** Statements per request of a workload on a target, in an untimed pass (and per page size: W2, W3). */
export async function countPass(
  db: DbKind,
  workload: WorkloadId,
  target: Target,
  n: number,
  headers: Record<string, string>,
  pgCpu: PgCpuSampler | null = null,
): Promise<SqlCount> {
  if (workload === 'WG') return countGenerated(db, target, headers, pgCpu);
  const specs = Array.from({ length: n }, (_, i) => requestOf(target, workload, i)!);
  const record: SqlCount = {
    db,
    workload,
    target: target.id,
    perRequest: await countStatements(target, specs, headers),
  };
  const query = isPeer(target) ? null : workload === 'W2' ? W2_QUERY : workload === 'W3' ? W3_QUERY : null;
  if (query) {
    record.byPageSize = {};
    for (const first of [5, 10, 50, 100]) {
      const spec: RequestSpec = { method: 'POST', path: '/graphql', body: graphqlBody(query, { first }) };
      record.byPageSize[String(first)] = await countStatements(target, Array(Math.min(n, 10)).fill(spec), headers);
    }
  }
  return record;
}

/**
 * WG: every generated shape counted on its own, for the distribution and the count per root field;
 * and the server's and PostgreSQL's CPU over this whole pass, one request at a time. The gateway is
 * asked every kept shape, T2 the shapes it answers alike (generated.ts: countingShapes).
 */
async function countGenerated(
  db: DbKind,
  target: Target,
  headers: Record<string, string>,
  pgCpu: PgCpuSampler | null,
): Promise<SqlCount> {
  const startStats = await target.stats();
  const pgStart = (await pgCpu?.sample()) ?? null;
  const distribution: Record<string, number> = {};
  let statements = 0;
  let roots = 0;
  let over = 0;
  const shapes = countingShapes(isPeer(target));
  const n = shapes.length;
  for (const shape of shapes) {
    const count = await countStatements(target, [shape.spec], headers);
    distribution[String(count)] = (distribution[String(count)] ?? 0) + 1;
    statements += count;
    roots += shape.roots;
    if (count > shape.roots) over++;
  }
  const pgMs = pgCpuMsBetween(pgStart, (await pgCpu?.sample()) ?? null);
  const endStats = await target.stats();
  return {
    db,
    workload: 'WG',
    target: target.id,
    perRequest: statements / n,
    distribution,
    perRootField: statements / roots,
    shapesOverOnePerRoot: over,
    passCpuMsPerReq: (endStats.cpuMicros - startStats.cpuMicros) / 1000 / n,
    passPgCpuMsPerReq: pgMs === null ? null : pgMs / n,
  };
}
