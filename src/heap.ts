/**
 * The V8 heap's settings, applied at the start of every process (main.ts): its growth between full
 * collections, and (below) allocation-site pretenuring.
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

/**
 * Allocation-site pretenuring, off by default (HEAP_PRETENURING). V8 watches each allocation site
 * (an object literal, a `new`, an array) and, once most of what a site allocated survived a young
 * collection, allocates everything from it in the old generation. A gateway's survivors are
 * mostly its caches being filled (a compiled operation, a plan, a parsed document), made by the
 * same code that makes every request's short-lived objects; after a few hundred distinct
 * operations, sites of the per-request path were tenured, so each request's garbage went straight
 * to the old generation (more full collections) and pointed from there into the young one (each
 * young collection scanning those pointers: 14-21 ms instead of 3). Measured on W6 at 32
 * connections after the bench's 182 generated shapes had each run once: 0.787 against 0.531
 * server CPU-ms per request (0.51-0.57 on a process that had served W6 only); in the bench's
 * sitting, W3 -18 %, W6 and WG -8 %, W1 +6 % (alone: -4 to -16 %; docs/deployment.md "Memory").
 * Objects that do live long are copied once more by the young collector before they are promoted:
 * the price.
 */
export function applyHeapSettings(settings: { heapGrowingPercent: number; heapPretenuring: boolean }): void {
  if (!settings.heapPretenuring) v8.setFlagsFromString('--no-allocation-site-pretenuring');
  applyHeapGrowth(settings.heapGrowingPercent);
}

/** Fixes V8's heap growing factor at 1 + percent/100; 0 leaves V8's own heuristics. */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
