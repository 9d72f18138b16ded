/**
 * WG shape by shape: every generated shape that T3 and T2 answer alike (generated.ts) measured on both,
 * back to back, and the distribution over shapes of the per-shape ratios T3/T2 (requests per second,
 * server CPU per request, PostgreSQL CPU per request), with the shapes where T3 fares worst.
 *
 * What one measurement is: a closed loop of `concurrency` requests in flight (keep-alive
 * connections from this process), the one shape's request over and over, for at least `ms`
 * milliseconds and 10 requests. Around it: the target's own CPU (its agent: process.cpuUsage,
 * microseconds), the PostgreSQL backends' CPU (pg-cpu.ts: /proc/<pid>/schedstat, nanoseconds, so a
 * few hundred milliseconds are enough) and the statements sent. Before a shape's first run on a
 * target, a warm-up of at least 30 requests (documents, plans and prepared statements cached on the
 * server and on every pooled connection). Per shape, `rounds` rounds alternate which target goes
 * first (T3 T2, then T2 T3, ...), so that a drift in the machine's load falls on both alike; a
 * target's figures for the shape are the best of its rounds (side()): on a shared machine other work
 * only ever slows a run or adds to its CPU time, so the best run is the closest to the shape's own
 * cost (as bench/sql-cpu.ts reads its figures). The 8 worst shapes by each ratio are then measured
 * again (as many rounds more) before the 5 worst are named, so that one burst does not name a shape.
 *
 * A closed loop makes each server's CPU per request depend on its own speed: PostgreSQL's backends
 * (and the server's event loop) sleep between requests and pay a wake-up per request, which a slower
 * server meets more often per second of work (measured: the same prepared statement costs a backend
 * ~16 µs back to back, ~40 µs per request in the loop, and more the slower the loop). A shop's load
 * is set by its traffic, not by the gateway's speed, so each shape is also measured *paced*: both
 * targets sent the shape at one rate, `PACED_SHARE` of the slower one's closed-loop req/s (an open
 * loop: request i leaves at i / rate, whatever the answers), `rounds` rounds alternating which goes
 * first, and the CPU per request of each side at that equal load is the best of its rounds.
 *
 * The reference is T2 (PostGraphile), or T3base (an earlier build of this gateway, `--baseline DIR`)
 * asked T3's own documents: a lever's A/B over every generated shape, and, with `--baseline .` (the
 * same build twice), an A/A control: how far from 1 the ratios of two identical servers spread on
 * this machine in this sitting, so that a T3/T2 ratio of the same sitting can be read against it (a
 * maximum over 95 noisy ratios is far from 1 even when nothing differs).
 * This is a sequential measure at low concurrency,
 * not a saturation run: its req/s is the inverse of the latency at `concurrency` in flight, on a
 * machine where the client, the server and PostgreSQL share the cores. A shape with a failed answer
 * on either target is left out and listed.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pgCpuMsBetween, type PgCpuSampler } from './pg-cpu';
import { log } from './records';
import type { GeneratedShape } from './generated';
import type { Target } from './targets';
import type { RequestSpec } from './workloads';

/**
 * Warm-up requests at least: both servers keep a pool of 10 connections and prepare a statement on
 * each connection's first use of it; the first requests of a document also parse, validate and plan.
 */
const WARMUP_REQUESTS = 30;

/** The paced rate, as a share of the slower target's closed-loop req/s for the shape. */
const PACED_SHARE = 0.6;

export interface CompareOptions {
  /** Milliseconds of measurement per shape, target and round (at least 10 requests). */
  ms: number;
  rounds: number;
  concurrency: number;
}

/** One target's figures for one shape, over its rounds. */
export interface ShapeSide {
  requests: number;
  rps: number;
  p50Ms: number;
  cpuMsPerReq: number;
  pgCpuMsPerReq: number | null;
  /**
   * The bench client's own CPU per request (this process, sending and parsing the answers): at 2 in
   * flight on a small machine it shares the cores with both servers, so an answer that costs the
   * client more to read (more headers, a bigger body) lowers req/s at equal server CPU.
   */
  clientCpuMsPerReq: number;
  sqlPerReq: number;
}

export interface ShapeResult {
  index: number;
  rootFields: string[];
  /** T3's document and variables (T2's are in `worst` and generated.ts). */
  query: string;
  variables: Record<string, unknown>;
  t3: ShapeSide;
  t2: ShapeSide;
  /** Both targets at one offered rate (req/s): each one's server and PostgreSQL CPU per request. */
  paced?: { rps: number; t3: PacedSide; t2: PacedSide };
  /**
   * T3/T2: req/s (higher is better for T3), server and PostgreSQL CPU per request (lower is better),
   * closed loop; `pacedCpu`, `pacedPgCpu`: the same CPU ratios at one offered rate (when measured).
   */
  ratio: {
    rps: number;
    cpu: number;
    pgCpu: number | null;
    client: number;
    pacedCpu?: number;
    pacedPgCpu?: number | null;
  };
}

/** One target's CPU per request for one shape at the paced rate (best of its rounds). */
export interface PacedSide {
  cpuMsPerReq: number;
  pgCpuMsPerReq: number | null;
}

/** The distribution of one ratio over the shapes. */
export interface Distribution {
  shapes: number;
  min: number;
  p10: number;
  p25: number;
  median: number;
  p75: number;
  p90: number;
  max: number;
  /** exp(mean(log(ratio))): the typical ratio, each shape weighing the same. */
  geomean: number;
  /** Share of the shapes where T3 is at least as good as T2 (req/s ratio >= 1, CPU ratios <= 1). */
  atLeastAsGood: number;
}

export interface WorstShape extends ShapeResult {
  metric: 'rps' | 'cpu' | 'pgCpu';
  peerQuery: string;
  peerVariables: Record<string, unknown>;
}

/** What T3 is set against: PostGraphile, or an earlier build of the gateway (module comment). */
export type Reference = 'T2' | 'T3base';

export interface GeneratedComparison {
  db: string;
  /** The reference side (`t2` in each ShapeResult); absent in records written before it could be T3base. */
  reference?: Reference;
  options: CompareOptions;
  /** Shapes measured (answered alike by both, before this measurement). */
  shapes: number;
  seconds: number;
  /** `client`: the bench client's CPU per request, T3's answers against T2's (no goal: what req/s includes). */
  distribution: {
    rps: Distribution | null;
    cpu: Distribution | null;
    pgCpu: Distribution | null;
    client: Distribution | null;
    /** At one offered rate per shape (absent when not measured). */
    pacedCpu?: Distribution | null;
    pacedPgCpu?: Distribution | null;
  };
  /** The 5 worst shapes for T3 by each ratio, with both documents. */
  worst: WorstShape[];
  perShape: ShapeResult[];
  failed: { index: number; detail: string }[];
}

/** The p-th quantile of ascending numbers, interpolated between the nearest two (R's type 7). */
export function quantile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? sorted[lo]!) - sorted[lo]!);
}

export function distribution(ratios: number[], higherIsBetter: boolean): Distribution | null {
  const xs = ratios.filter((x) => Number.isFinite(x) && x > 0).sort((a, b) => a - b);
  if (!xs.length) return null;
  return {
    shapes: xs.length,
    min: xs[0]!,
    p10: quantile(xs, 0.1),
    p25: quantile(xs, 0.25),
    median: quantile(xs, 0.5),
    p75: quantile(xs, 0.75),
    p90: quantile(xs, 0.9),
    max: xs.at(-1)!,
    geomean: Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length),
    atLeastAsGood: xs.filter((x) => (higherIsBetter ? x >= 1 : x <= 1)).length / xs.length,
  };
}

type Sender = (spec: RequestSpec) => Promise<{ ok: boolean; detail?: string }>;

/** A keep-alive client for one target (at most `concurrency` sockets). */
function client(target: Target, headers: Record<string, string>, concurrency: number): { send: Sender; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(target.url);
  const send: Sender = (spec) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: spec.method,
          path: spec.path,
          headers: spec.body
            ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(spec.body) }
            : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            const ok = res.statusCode === 200 && !body.includes('"errors":');
            resolve(ok ? { ok } : { ok, detail: `HTTP ${res.statusCode}: ${body.slice(0, 200)}` });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(spec.body);
    });
  return { send, close: () => agent.destroy() };
}

/** `concurrency` loops sending `spec` until `ms` have passed and `min` requests were sent. */
async function loop(send: Sender, spec: RequestSpec, ms: number, min: number, concurrency: number) {
  const started = performance.now();
  const latencies: number[] = [];
  let sent = 0;
  let failure: string | undefined;
  const worker = async () => {
    while (!failure && (sent < min || performance.now() - started < ms)) {
      sent++;
      const t = performance.now();
      const r = await send(spec);
      latencies.push(performance.now() - t);
      if (!r.ok) failure ??= r.detail;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { requests: latencies.length, seconds: (performance.now() - started) / 1000, latencies, failure };
}

/**
 * An open loop: request i leaves at `i / rate` seconds whatever the answers (at most the client's
 * sockets in flight; the rest wait in its queue), for `ms` milliseconds and at least `min` requests.
 * Timers fire at best every millisecond, so requests due together leave together: both targets get
 * the same pattern.
 */
async function paced(send: Sender, spec: RequestSpec, rate: number, ms: number, min: number) {
  const started = performance.now();
  const total = Math.max(min, Math.round((rate * ms) / 1000));
  const pending: Promise<void>[] = [];
  let failure: string | undefined;
  for (let i = 0; i < total && !failure;) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    for (; i < due; i++)
      pending.push(
        send(spec).then((r) => {
          if (!r.ok) failure ??= r.detail;
        }),
      );
    if (i < total) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return { requests: pending.length, seconds: (performance.now() - started) / 1000, failure };
}

/** One paced run of one shape on one target. */
interface PacedRun {
  requests: number;
  cpuMs: number;
  pgMs: number | null;
}

/** One timed run of one shape on one target. */
interface Run {
  requests: number;
  seconds: number;
  latencies: number[];
  cpuMs: number;
  clientMs: number;
  pgMs: number | null;
  statements: number;
}

/**
 * A target's figures for a shape: the best of its rounds (highest req/s, lowest CPU per request),
 * since other work on the machine only ever slows a run down or adds to its CPU time (caches,
 * scheduling); latency's median and statements over all of them.
 */
function side(runs: Run[]): ShapeSide {
  const sorted = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const pg = runs.every((r) => r.pgMs !== null) ? Math.min(...runs.map((r) => r.pgMs! / r.requests)) : null;
  return {
    requests,
    rps: Math.max(...runs.map((r) => r.requests / r.seconds)),
    p50Ms: quantile(sorted, 0.5),
    cpuMsPerReq: Math.min(...runs.map((r) => r.cpuMs / r.requests)),
    pgCpuMsPerReq: pg,
    clientCpuMsPerReq: Math.min(...runs.map((r) => r.clientMs / r.requests)),
    sqlPerReq: runs.reduce((n, r) => n + r.statements, 0) / requests,
  };
}

/** Measures every shape on T3 and T2 (see the module comment) and returns the distribution. */
export async function compareGenerated(
  db: string,
  t3: Target,
  t2: Target,
  shapes: GeneratedShape[],
  headers: Record<string, string>,
  pgCpu: PgCpuSampler | null,
  options: CompareOptions,
  reference: Reference = 'T2',
): Promise<GeneratedComparison> {
  const started = Date.now();
  // Below, `T2` is the reference side: PostGraphile with its translated document, or T3base with T3's.
  const peer = reference === 'T2';
  const referenceSpec = (shape: GeneratedShape) => (peer ? shape.peer!.spec : shape.spec);
  const clients = {
    T3: client(t3, headers, options.concurrency),
    T2: client(t2, peer ? {} : headers, options.concurrency),
  };
  const failed: GeneratedComparison['failed'] = [];
  /** Every run of every shape still measured, by shape index. */
  const runsOf = new Map<number, Record<'T3' | 'T2', Run[]>>();
  log(
    `${db} WG: ${shapes.length} shapes on T3 and ${reference}, ${options.rounds} round(s) of ${options.ms} ms each at ${options.concurrency} in flight`,
  );

  /** `options.rounds` more rounds of one shape on both targets (the first time with the warm-up). */
  async function measureShape(shape: GeneratedShape, n: number): Promise<void> {
    const first = !runsOf.has(shape.index);
    const runs = runsOf.get(shape.index) ?? { T3: [], T2: [] };
    runsOf.set(shape.index, runs);
    let failure: string | undefined;
    for (let round = 0; round < options.rounds && !failure; round++) {
      const order: ('T3' | 'T2')[] = (n + round) % 2 ? ['T2', 'T3'] : ['T3', 'T2'];
      for (const id of order) {
        const target = id === 'T3' ? t3 : t2;
        const spec = id === 'T3' ? shape.spec : referenceSpec(shape);
        const { send } = clients[id];
        // Enough requests for every pooled connection to have prepared the shape's statement (the
        // first round), then a few to take the connections back from the other target's turn.
        const warmup = first && round === 0;
        const warm = await loop(
          send,
          spec,
          warmup ? options.ms / 2 : 0,
          warmup ? WARMUP_REQUESTS : 4,
          options.concurrency,
        );
        if (warm.failure) failure = `${id}: ${warm.failure}`;
        const before = await target.stats();
        const pgBefore = (await pgCpu?.sample()) ?? null;
        const clientBefore = process.cpuUsage();
        const r = await loop(send, spec, options.ms, 10, options.concurrency);
        const client = process.cpuUsage(clientBefore);
        const pgAfter = (await pgCpu?.sample()) ?? null;
        const after = await target.stats();
        if (r.failure) failure ??= `${id}: ${r.failure}`;
        runs[id].push({
          requests: r.requests,
          seconds: r.seconds,
          latencies: r.latencies,
          cpuMs: (after.cpuMicros - before.cpuMicros) / 1000,
          clientMs: (client.user + client.system) / 1000,
          pgMs: pgCpuMsBetween(pgBefore, pgAfter),
          statements: after.statements - before.statements,
        });
      }
    }
    if (failure) {
      runsOf.delete(shape.index);
      failed.push({ index: shape.index, detail: failure });
      log(`${db} WG: shape #${shape.index} left out: ${failure}`);
    }
  }

  /** Paced runs of every shape still measured, by shape index: the offered rate and each side's runs. */
  const pacedOf = new Map<number, { rps: number; T3: PacedRun[]; T2: PacedRun[] }>();

  /** `options.rounds` rounds of one shape on both targets at one offered rate (module comment). */
  async function measurePaced(shape: GeneratedShape, n: number, rps: number): Promise<void> {
    const runs = { rps, T3: [] as PacedRun[], T2: [] as PacedRun[] };
    for (let round = 0; round < options.rounds; round++) {
      const order: ('T3' | 'T2')[] = (n + round) % 2 ? ['T2', 'T3'] : ['T3', 'T2'];
      for (const id of order) {
        const target = id === 'T3' ? t3 : t2;
        const spec = id === 'T3' ? shape.spec : referenceSpec(shape);
        const { send } = clients[id];
        await loop(send, spec, 0, 4, options.concurrency);
        const before = await target.stats();
        const pgBefore = (await pgCpu?.sample()) ?? null;
        const r = await paced(send, spec, rps, options.ms, 10);
        const pgAfter = (await pgCpu?.sample()) ?? null;
        const after = await target.stats();
        if (r.failure) return; // answered alike before: a failure now leaves the shape's paced figures out
        runs[id].push({
          requests: r.requests,
          cpuMs: (after.cpuMicros - before.cpuMicros) / 1000,
          pgMs: pgCpuMsBetween(pgBefore, pgAfter),
        });
      }
    }
    pacedOf.set(shape.index, runs);
  }

  const pacedSide = (runs: PacedRun[]): PacedSide => ({
    cpuMsPerReq: Math.min(...runs.map((r) => r.cpuMs / r.requests)),
    pgCpuMsPerReq: runs.every((r) => r.pgMs !== null) ? Math.min(...runs.map((r) => r.pgMs! / r.requests)) : null,
  });

  const results = (): ShapeResult[] =>
    shapes.flatMap((shape) => {
      const runs = runsOf.get(shape.index);
      if (!runs) return [];
      const a = side(runs.T3);
      const b = side(runs.T2);
      const pgCpu = a.pgCpuMsPerReq === null || b.pgCpuMsPerReq === null ? null : a.pgCpuMsPerReq / b.pgCpuMsPerReq;
      const p = pacedOf.get(shape.index);
      const paced = p && { rps: p.rps, t3: pacedSide(p.T3), t2: pacedSide(p.T2) };
      const pacedRatio = paced && {
        pacedCpu: paced.t3.cpuMsPerReq / paced.t2.cpuMsPerReq,
        pacedPgCpu:
          paced.t3.pgCpuMsPerReq === null || paced.t2.pgCpuMsPerReq === null
            ? null
            : paced.t3.pgCpuMsPerReq / paced.t2.pgCpuMsPerReq,
      };
      return [
        {
          index: shape.index,
          rootFields: shape.rootFields,
          query: shape.query,
          variables: shape.variables,
          t3: a,
          t2: b,
          ...(paced && { paced }),
          ratio: {
            rps: a.rps / b.rps,
            cpu: a.cpuMsPerReq / b.cpuMsPerReq,
            pgCpu,
            client: a.clientCpuMsPerReq / b.clientCpuMsPerReq,
            ...pacedRatio,
          },
        },
      ];
    });
  const badness: Record<WorstShape['metric'], (r: ShapeResult) => number | null> = {
    rps: (r) => 1 / r.ratio.rps,
    cpu: (r) => r.ratio.cpu,
    pgCpu: (r) => r.ratio.pgCpu,
  };
  const worstOf = (list: ShapeResult[], metric: WorstShape['metric'], k: number) =>
    list
      .filter((r) => badness[metric](r) !== null)
      .sort((x, y) => badness[metric](y)! - badness[metric](x)!)
      .slice(0, k);

  const byIndex = new Map(shapes.map((s) => [s.index, s]));
  let perShape: ShapeResult[];
  try {
    for (const [n, shape] of shapes.entries()) {
      await measureShape(shape, n);
      if ((n + 1) % 25 === 0) log(`${db} WG: ${n + 1} of ${shapes.length} shapes measured`);
    }
    // A single shape's runs can meet another process's burst: the worst candidates (the 8 worst by
    // each ratio) are measured again, their figures the best of all their rounds, before the worst 5
    // are named.
    const first = results();
    const again = new Set((['rps', 'cpu', 'pgCpu'] as const).flatMap((m) => worstOf(first, m, 8).map((r) => r.index)));
    log(`${db} WG: measuring the ${again.size} worst candidates again`);
    for (const [n, shape] of shapes.entries()) if (again.has(shape.index)) await measureShape(shape, n + 1);
    log(`${db} WG: every shape again, both targets at one offered rate (${PACED_SHARE} of the slower's req/s)`);
    for (const [n, r] of results().entries()) {
      const shape = byIndex.get(r.index)!;
      await measurePaced(shape, n, PACED_SHARE * Math.min(r.t3.rps, r.t2.rps));
    }
    perShape = results();
  } finally {
    clients.T3.close();
    clients.T2.close();
  }
  const pacedDistribution = (key: 'pacedCpu' | 'pacedPgCpu') => {
    // Shapes without paced figures (a failed answer then, or no /proc for PostgreSQL) are left out.
    const xs = perShape.map((r) => r.ratio[key]).filter((x): x is number => typeof x === 'number');
    return xs.length ? distribution(xs, false) : null;
  };
  const worstBy = (metric: WorstShape['metric']): WorstShape[] =>
    worstOf(perShape, metric, 5).map((r) => {
      const s = byIndex.get(r.index)!;
      return {
        metric,
        ...r,
        peerQuery: peer ? s.peer!.query : s.query,
        peerVariables: peer ? s.peer!.variables : s.variables,
      };
    });
  return {
    db,
    reference,
    options,
    shapes: perShape.length,
    seconds: (Date.now() - started) / 1000,
    distribution: {
      rps: distribution(
        perShape.map((r) => r.ratio.rps),
        true,
      ),
      cpu: distribution(
        perShape.map((r) => r.ratio.cpu),
        false,
      ),
      pgCpu: perShape.some((r) => r.ratio.pgCpu === null)
        ? null
        : distribution(
            perShape.map((r) => r.ratio.pgCpu!),
            false,
          ),
      client: distribution(
        perShape.map((r) => r.ratio.client),
        false,
      ),
      pacedCpu: pacedDistribution('pacedCpu'),
      pacedPgCpu: pacedDistribution('pacedPgCpu'),
    },
    worst: [...worstBy('rps'), ...worstBy('pgCpu'), ...worstBy('cpu')],
    perShape,
    failed,
  };
}
