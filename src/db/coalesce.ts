/**
 * Reads by key, coalesced across requests: the statements that read rows by a list of keys and are
 * otherwise identical (the same text, the same values but the keys), sent to the same pool within
 * one turn of the event loop, become ONE statement over the union of their keys, each caller getting
 * back the rows of its own keys.
 *
 * Why: a gateway under load answers many `pet(id:)` (or `order(id:)`, `node(id:)`, `_entities`)
 * reads of one document at once, each a primary-key probe of its own. Each costs PostgreSQL a
 * statement (Bind, Execute, a wake-up of its backend) and the gateway a pooled connection, a socket
 * write and a read; the probe itself is the smallest part. DataLoader does this within one request
 * (src/read/reads.ts); requests of the same turn are what it cannot see, hence written here.
 *
 * What makes it safe: a statement is coalesced only with statements of the same text and the same
 * values in every other position, so every condition it carries (the caller's access rule on orders,
 * a nested page's window and filters) is the same for all of them, and each caller gets only the rows
 * whose key it asked for. The pool is chosen before (read routing, src/db/read-routing.ts): a caller
 * pinned to the primary is never answered from a replica because another one was not. A statement
 * that fails fails every caller it served, as each would have failed alone.
 *
 * Shared reads (`readsShared`) are the case without keys: identical statements of one turn (the same
 * text and values) are sent once and every caller gets the same rows. A subscription event's object
 * is read by each subscriber's context with the same statement when they subscribed with one document.
 *
 * When: the batch is sent at `setImmediate`, after the I/O callbacks of the current turn (every
 * request whose bytes arrived in it has reached its reads by then: they chain on promises); alone in
 * its turn, a read is sent as it was, one turn later.
 */
import type { Prisma } from '../generated/prisma/client';

/** What a runner needs of a statement. */
export type Statement = Pick<Prisma.Sql, 'text' | 'values'>;

interface KeyedRead {
  /** The position, in `values`, of the array of keys; -1: no keys, the same statement shared (`readsShared`). */
  at: number;
  /** The output column holding each row's key. */
  column: string;
}

const keyedReads = new WeakMap<object, KeyedRead>();

/**
 * Marks `statement` as a read of rows by the keys `keys` (an array passed as one of its values, by
 * identity), each row carrying its key in `column`: such statements may be coalesced. Returns it.
 */
export function readsByKeys<S extends Statement>(statement: S, keys: readonly unknown[], column: string): S {
  const at = statement.values.indexOf(keys);
  // Only an unambiguous position: the same array twice could not be told apart.
  if (at >= 0 && statement.values.indexOf(keys, at + 1) < 0) keyedReads.set(statement, { at, column });
  return statement;
}

/**
 * Marks `statement` as one whose identical copies (the same text and values) asked in one turn may be
 * sent once, every caller getting the same rows: the relations of an event's object, read by each
 * subscriber's own context (1,000 subscribers of one document: one statement per event, not 1,000).
 */
export function readsShared<S extends Statement>(statement: S): S {
  keyedReads.set(statement, { at: -1, column: '' });
  return statement;
}

/** At most this many keys in one coalesced statement (DataLoader's own bound in src/read/reads.ts). */
export const MAX_COALESCED_KEYS = 1000;

interface Waiter {
  keys: readonly unknown[];
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

interface Batch {
  statement: Statement;
  read: KeyedRead;
  keys: Map<string, unknown>;
  waiters: Waiter[];
}

type Runner<P> = <T>(target: P, statement: Statement) => Promise<T[]>;

/** The identity of a keyed statement without its keys: its text and every other value. */
function batchId(statement: Statement, at: number): string | null {
  try {
    const others = statement.values.map((v, i) => (i === at ? null : v));
    return `${at}\u0000${statement.text}\u0000${JSON.stringify(others, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
  } catch {
    return null; // a value JSON cannot write: not coalesced
  }
}

/** A key as the batch compares it: a row's key (bigint from the reader) and a caller's alike. */
const keyOf = (key: unknown): string => String(key);

/**
 * Wraps `run` (which sends one statement to `target`, a pool) so that statements marked by
 * `readsByKeys` are coalesced per target and turn; any other statement goes straight through.
 */
export function coalescing<P extends object>(run: Runner<P>): Runner<P> {
  let pending = new Map<P, Map<string, Batch>>();
  let scheduled = false;

  const send = (target: P, batch: Batch): void => {
    if (batch.waiters.length === 1) {
      const [only] = batch.waiters;
      run(target, batch.statement).then(only!.resolve, only!.reject);
      return;
    }
    if (batch.read.at < 0) {
      run<unknown>(target, batch.statement).then(
        (rows) => {
          for (const waiter of batch.waiters) waiter.resolve([...rows]);
        },
        (error: unknown) => {
          for (const waiter of batch.waiters) waiter.reject(error);
        },
      );
      return;
    }
    const values = [...batch.statement.values];
    values[batch.read.at] = [...batch.keys.values()];
    run<Record<string, unknown>>(target, { text: batch.statement.text, values }).then(
      (rows) => {
        const byKey = new Map<string, Record<string, unknown>[]>();
        for (const row of rows) {
          const key = keyOf(row[batch.read.column]);
          const list = byKey.get(key);
          if (list) list.push(row);
          else byKey.set(key, [row]);
        }
        for (const waiter of batch.waiters) {
          const own = new Set(waiter.keys.map(keyOf));
          waiter.resolve([...own].flatMap((key) => byKey.get(key) ?? []));
        }
      },
      (error: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(error);
      },
    );
  };

  const flush = (): void => {
    scheduled = false;
    const due = pending;
    pending = new Map();
    for (const [target, batches] of due) for (const batch of batches.values()) send(target, batch);
  };

  return function coalesced<T>(target: P, statement: Statement): Promise<T[]> {
    const read = keyedReads.get(statement);
    const keys = !read ? undefined : read.at < 0 ? [] : statement.values[read.at];
    const id = read && Array.isArray(keys) ? batchId(statement, read.at) : null;
    if (!read || id === null) return run<T>(target, statement);
    let batches = pending.get(target);
    if (!batches) pending.set(target, (batches = new Map()));
    let batch = batches.get(id);
    if (batch && batch.keys.size + (keys as unknown[]).length > MAX_COALESCED_KEYS) {
      // Full: it goes as it is, and this read starts the next one.
      send(target, batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { statement, read, keys: new Map(), waiters: [] };
      batches.set(id, batch);
    }
    for (const key of keys as unknown[]) batch.keys.set(keyOf(key), key);
    const joined = batch;
    const result = new Promise<T[]>((resolve, reject) => {
      joined.waiters.push({ keys: keys as unknown[], resolve: resolve as (rows: unknown[]) => void, reject });
    });
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return result;
  };
}
