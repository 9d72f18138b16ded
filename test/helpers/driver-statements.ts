/**
 * The statements the SQL reader hands to the driver (PGlite's `query`, or the pool's), as opposed to
 * those it is asked for (`TestDatabase.sql`, counted before coalescing: src/db/coalesce.ts). For
 * tests that count what actually reaches the database. Jest's spy, so `restore()` when done.
 */
import type { Database } from '../../src/db/database';

export interface DriverStatements {
  /** The texts sent since the last `reset`. */
  texts(): string[];
  reset(): void;
  restore(): void;
}

export function driverStatements(db: Database): DriverStatements {
  const target = (db.pglite ?? db.pool) as unknown as { query(q: unknown): unknown };
  const spy = jest.spyOn(target, 'query');
  return {
    texts: () => spy.mock.calls.map(([q]) => (typeof q === 'string' ? q : (q as { text: string }).text)),
    reset: () => spy.mockClear(),
    restore: () => spy.mockRestore(),
  };
}
