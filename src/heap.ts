/**
 * The V8 heap's growth between full collections, set at the start of every process (main.ts).
 *
 * After each full (mark-compact) collection V8 sets the next one's trigger at the live size times a
 * growing factor it picks from its own speed; under a gateway's steady allocation it picks its
 * maximum, 4x, so the old generation fills with promoted garbage from ~45 MiB live to ~170 MiB
 * before it is collected, and the process peaks at ~420 MiB (the hand-written Fastify + pg server:
 * ~150). HEAP_GROWING_PERCENT=50 fixes the factor at 1.5: measured against the build before it in
 * one sitting (`npm run bench`, Node 24, docs/benchmarks.md "Issue 33, round 9"), peak RSS 315 MiB
 * against 438-440, server CPU per request W1 0.92, W2 1.06, W3 1.00, W6 1.14 (more, smaller full
 * collections, most of their marking on V8's helper thread). The young generation is left alone: bounding it
 * (--max-semi-space-size) costs 13-58 % CPU (docs/deployment.md "Memory").
 *
 * There is no Node API for it and V8 refuses `--heap-growing-percent` in NODE_OPTIONS, so the flag
 * is set with v8.setFlagsFromString before the server's modules load; V8 reads it each time it
 * computes a limit, which `--trace-gc-verbose` shows ("[HeapController] ... (1.5)").
 */
import v8 from 'node:v8';

/** Fixes V8's heap growing factor at 1 + percent/100; 0 leaves V8's own heuristics. */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
