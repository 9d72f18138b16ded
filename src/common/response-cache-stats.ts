/**
 * The response cache's tallies (src/http/response-cache.store.ts counts them, src/telemetry/metrics.ts
 * reports them): a leaf file, so telemetry reads the shape without importing http/.
 */
export interface ResponseCacheStats {
  hits: number;
  misses: number;
  /** Eligible requests answered without the cache (not synced: Redis away, LISTEN down). */
  bypasses: number;
  /** Generation moves: writes here, writes heard of, resyncs. */
  invalidations: number;
  /** Mutations whose invalidation could not be made in time (redis: Redis unreachable). */
  invalidationFailures: number;
  /** In-process store only (Redis keeps its own: INFO keyspace / memory). */
  entries: number;
  bytes: number;
}
