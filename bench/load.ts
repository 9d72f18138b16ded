/**
 * One timed load: autocannon on loopback, bounded by duration, with the workload's requests rotated
 * per request (setupRequest). Latencies are collected from autocannon's per-response events in
 * microsecond precision (its own histogram keeps whole milliseconds), 2xx responses only.
 * A GraphQL answer with `errors` comes as HTTP 200: it is counted as a failed request (with the
 * non-2xx answers), never as throughput.
 */
import autocannon from 'autocannon';
import { requestFor, type RequestSpec, type WorkloadId } from './workloads';

export interface LoadOptions {
  url: string;
  workload: WorkloadId;
  data: { pets: number; w4Pets: number };
  connections: number;
  durationSec: number;
  headers: Record<string, string>;
  /** Requests per second over all connections; unset means as fast as the target answers. */
  overallRate?: number;
  /** The target's i-th request of the workload, when it is not `requestFor`'s (the peer, T2). */
  request?: (i: number) => RequestSpec;
}

export interface LoadResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  durationSec: number;
  rps: number;
  p50: number;
  p99: number;
}

/** The p-th percentile (nearest rank) of ascending numbers. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  let i = 0;
  let graphqlErrors = 0;
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  let finish!: (error: Error | null, result: autocannon.Result) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: o.url,
      connections: o.connections,
      duration: o.durationSec,
      pipelining: 1,
      ...(o.overallRate ? { overallRate: o.overallRate } : {}),
      requests: [
        {
          setupRequest: (req) => {
            const spec = o.request ? o.request(i++) : requestFor(o.workload, i++, o.data);
            return {
              ...req,
              method: spec.method,
              path: spec.path,
              body: spec.body,
              headers: spec.body ? { ...o.headers, 'content-type': 'application/json' } : o.headers,
            };
          },
          onResponse: (status: number, body: string) => {
            if (status >= 200 && status < 300 && o.workload !== 'W5' && body.includes('"errors":')) graphqlErrors++;
          },
        },
      ],
    },
    (error, result) => finish(error, result),
  );
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await done;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const sorted = Float64Array.from(latencies).sort();
  const ok = result['2xx'] - graphqlErrors;
  const requests = result['2xx'] + result.non2xx;
  const durationSec = result.duration || elapsed;
  return {
    requests,
    ok,
    non2xx: result.non2xx + graphqlErrors,
    errors: result.errors,
    durationSec,
    rps: ok / durationSec,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}
