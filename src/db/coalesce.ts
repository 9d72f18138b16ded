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
 * is read by each subscriber's context with the same statement when they subscribed with one
 * document; a root page is read with the same statement by every client that asks for it alike.
 * (Apollo Router's `deduplicate_query` does the same for identical subgraph requests in flight; here
 * a statement already sent is never joined, so nobody gets rows read before its request arrived.)
 *
 * When: a read by key or a root page goes at once while its pool has nothing in flight and nothing
 * is held (a gateway under light load pays nothing for this). Otherwise, and for an event's shared
 * reads always, it is held until `setImmediate`, after the I/O
 * callbacks of the current turn (every request whose bytes arrived in it has reached its reads by
 * then: they chain on promises), and sent with the reads that joined it; alone, as it was asked.
 * A lookup of one key (`readsByKey`) is sent as `= $1`, its relations as plain joins, and so is a
 * batch whose lookups all asked that one key; only a batch of several keys gets the form over many
 * keys, built then.
 */
import type { Prisma } from '../generated/prisma/client';

/** What a runner needs of a statement. */
export type Statement = Pick<Prisma.Sql, 'text' | 'values'>;

interface KeyedRead {
  /** The position, in `values`, of the keys (an array) or of the one key (`readsByKey`); -1: shared, no keys. */
  at: number;
  /** The output column holding each row's key. */
  column: string;
  /** `readsByKey`: the statement over several keys, for a batch of more than one read. */
  over?: (keys: unknown[]) => Statement;
  /** Sent at once while its pool has nothing in flight and nothing is held; false: always waits for the turn. */
  idleAtOnce: boolean;
}

const keyedReads = new WeakMap<object, KeyedRead>();

/**
 * Marks `statement` as a read of rows by the keys `keys` (an array passed as one of its values, by
 * identity), each row carrying its key in `column`: such statements may be coalesced. Returns it.
 */
export function readsByKeys<S extends Statement>(statement: S, keys: readonly unknown[], column: string): S {
  const at = statement.values.indexOf(keys);
  // Only an unambiguous position: the same array twice could not be told apart.
  if (at >= 0 && statement.values.indexOf(keys, at + 1) < 0)
    keyedReads.set(statement, { at, column, idleAtOnce: true });
  return statement;
}

/**
 * Marks `statement`, a lookup of the one key `key` (`WHERE id = $n`, sent as it is when no other
 * joins it), as one that may be coalesced: `over(keys)` writes the same read over several keys
 * (`= ANY($n)`), built only for a batch of more than one. Not marked when `key` is among its values
 * other than once (its position could not be told). Returns it.
 */
export function readsByKey<S extends Statement>(
  statement: S,
  key: unknown,
  column: string,
  over: (keys: unknown[]) => Statement,
): S {
  const at = statement.values.indexOf(key);
  if (at >= 0 && statement.values.indexOf(key, at + 1) < 0)
    keyedReads.set(statement, { at, column, over, idleAtOnce: true });
  return statement;
}

/**
 * Marks `statement` as one whose identical copies (the same text and values) asked in one turn may be
 * sent once, every caller getting the same rows. `when`:
 * - `'turn'`: always held for the turn. The relations of an event's object, read by each subscriber's
 *   own context one after another in the turn the event arrived (1,000 subscribers of one document:
 *   one statement per event, not 1,000).
 * - `'busy'`: sent at once while its pool has nothing in flight and nothing is held, as a lookup by
 *   key is; held for the turn otherwise. A root page (`pets(first: 50)`, a category's pets) asked by
 *   many clients at once: under load, those of one turn share one statement.
 * A statement sent after every caller asked it answers each as one sent for it alone would (read
 * committed: it sees what had committed before it started), so a caller never gets rows older than
 * its own request. A statement already sent is never joined.
 */
export function readsShared<S extends Statement>(statement: S, when: 'turn' | 'busy' = 'turn'): S {
  keyedReads.set(statement, { at: -1, column: '', idleAtOnce: when === 'busy' });
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
    // A bigint as an object, so that it never reads like a string value (`3n` against "3n").
    return `${at}\u0000${statement.text}\u0000${JSON.stringify(others, (_k, v: unknown) => (typeof v === 'bigint' ? { bigint: String(v) } : v))}`;
  } catch {
    return null; // a value JSON cannot write: not coalesced
  }
}

/** A key as the batch compares it: a row's key (bigint from the reader) and a caller's alike. */
const keyOf = (key: unknown): string => String(key);

/** Sends a batch: alone as it was asked, shared once, or over the union of its keys. */
function sendBatch<P>(counted: Runner<P>, target: P, batch: Batch): void {
  if (batch.waiters.length === 1) {
    const [only] = batch.waiters;
    counted(target, batch.statement).then(only!.resolve, only!.reject);
    return;
  }
  if (batch.read.at < 0) {
    counted<unknown>(target, batch.statement).then(
      (rows) => {
        for (const waiter of batch.waiters) waiter.resolve([...rows]);
      },
      (error: unknown) => {
        for (const waiter of batch.waiters) waiter.reject(error);
      },
    );
    return;
  }
  const keys = [...batch.keys.values()];
  let statement: Statement;
  try {
    // Lookups that all asked the same key (a hot row read by every client of a turn) go as the
    // lookup they are, `= $1`: the form over many keys is planned for many (PostgreSQL estimates an
    // array parameter at ten elements), and cost a read of one order with its pet's page 1.5x the
    // PostgreSQL CPU at 2 in flight that it cost alone (docs/benchmarks.md, round 16).
    if (batch.read.over && keys.length === 1) statement = batch.statement;
    else if (batch.read.over) statement = batch.read.over(keys);
    else {
      const values = [...batch.statement.values];
      values[batch.read.at] = keys;
      statement = { text: batch.statement.text, values };
    }
  } catch (error) {
    // Thrown in the turn's callback, it would end the process and leave every caller waiting.
    for (const waiter of batch.waiters) waiter.reject(error);
    return;
  }
  counted<Record<string, unknown>>(target, statement).then(
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
}

/**
 * Wraps `run` (which sends one statement to `target`, a pool) so that statements marked by
 * `readsByKeys` are coalesced per target and turn; any other statement goes straight through.
 */
export function coalescing<P extends object>(run: Runner<P>): Runner<P> {
  let pending = new Map<P, Map<string, Batch>>();
  let scheduled = false;
  /** Statements sent to each target and not answered yet. */
  const inFlight = new Map<P, number>();
  const counted = <T>(target: P, statement: Statement): Promise<T[]> => {
    inFlight.set(target, (inFlight.get(target) ?? 0) + 1);
    const done = () => inFlight.set(target, inFlight.get(target)! - 1);
    const sent = run<T>(target, statement);
    sent.then(done, done);
    return sent;
  };

  const send = (target: P, batch: Batch): void => sendBatch(counted, target, batch);

  const flush = (): void => {
    scheduled = false;
    const due = pending;
    pending = new Map();
    for (const [target, batches] of due) for (const batch of batches.values()) send(target, batch);
  };

  return function coalesced<T>(target: P, statement: Statement): Promise<T[]> {
    const read = keyedReads.get(statement);
    // A read by key (or a shared root read) while nothing is held and nothing waited for on this
    // target: no other read to join, and none coming from a busy turn, so it goes now (light load
    // pays no turn for it). An event's shared reads always wait for the turn: its subscribers ask
    // theirs one after another in it.
    if (!read || (read.idleAtOnce && !scheduled && !inFlight.get(target))) return counted<T>(target, statement);
    const key = read.at < 0 ? undefined : statement.values[read.at];
    const keys = read.at < 0 ? [] : read.over ? [key] : key;
    const id = Array.isArray(keys) ? batchId(statement, read.at) : null;
    if (id === null) return counted<T>(target, statement);
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
    for (const k of keys as unknown[]) batch.keys.set(keyOf(k), k);
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
