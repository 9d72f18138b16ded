/**
 * Reads by key coalesced across requests (src/db/coalesce.ts), against a runner that records what it
 * is asked to send and answers from a table of rows: which statements become one, and that each
 * caller gets the rows of its own keys and nothing else.
 */
import {
  coalescing,
  MAX_COALESCED_KEYS,
  readsByKey,
  readsByKeys,
  readsShared,
  type Statement,
} from '../../src/db/coalesce';

type Row = { c0: bigint; owner: string };

const ROWS: Row[] = [1n, 2n, 3n, 4n, 5n].flatMap((id) => [{ c0: id, owner: id % 2n ? 'alice' : 'bob' }]);

/** A runner over ROWS: `values[0]` the keys (or one key), `values[1]` (when present) the owner the rows must have. */
function recordingRunner() {
  const sent: Statement[] = [];
  let failWith: Error | null = null;
  const releases: (() => void)[] = [];
  const run = async <T>(_target: object, statement: Statement): Promise<T[]> => {
    if (statement.text === 'BUSY') {
      await new Promise<void>((r) => releases.push(r));
      return [];
    }
    sent.push(statement);
    if (failWith) throw failWith;
    const asked = statement.values[0];
    const keys = (Array.isArray(asked) ? asked : [asked]).map(String);
    const owner = statement.values[1] as string | undefined;
    return ROWS.filter((r) => keys.includes(String(r.c0)) && (owner === undefined || r.owner === owner)) as T[];
  };
  return {
    run,
    sent,
    /** A statement in flight on `target` until `release`: reads asked meanwhile are held for their turn. */
    busy: (coalesced: ReturnType<typeof coalescing<object>>, target: object) => void coalesced(target, BUSY),
    release: () => releases.splice(0).forEach((r) => r()),
    fail: (error: Error | null) => {
      failWith = error;
    },
  };
}

const TEXT = 'SELECT c0, owner FROM t WHERE c0 = ANY($1) AND owner = $2';
const BUSY: Statement = { text: 'BUSY', values: [] };

function byKeys(keys: bigint[], owner: string, text = TEXT): Statement {
  return readsByKeys({ text, values: [keys, owner] }, keys, 'c0');
}

const SCALAR = 'SELECT c0, owner FROM t WHERE c0 = $1 AND owner = $2';

/** A lookup of one key (`readsByKey`), written over keys (TEXT) when it joins others. */
function lookup(id: bigint, owner: string): Statement {
  return readsByKey({ text: SCALAR, values: [id, owner] }, id, 'c0', (keys) => ({ text: TEXT, values: [keys, owner] }));
}

const ids = (rows: Row[]) => rows.map((r) => r.c0);

describe('reads by key coalesced across callers', () => {
  const pool = {};

  it('sends the reads of one turn with the same text and other values as ONE statement over their keys', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const [a, b, c] = await Promise.all([
      run<Row>(pool, byKeys([1n], 'alice')),
      run<Row>(pool, byKeys([3n, 5n], 'alice')),
      run<Row>(pool, byKeys([1n], 'alice')),
    ]);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]!.values[0]).toEqual([1n, 3n, 5n]);
    expect(ids(a!)).toEqual([1n]);
    expect(ids(b!)).toEqual([3n, 5n]);
    expect(ids(c!)).toEqual([1n]);
  });

  it("never puts two callers' reads in one statement when any other value differs (an owner)", async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    // Bob asks for alice's order 1 in the same turn as alice: he must get nothing.
    const [alice, bob] = await Promise.all([
      run<Row>(pool, byKeys([1n], 'alice')),
      run<Row>(pool, byKeys([1n], 'bob')),
    ]);
    expect(ids(alice!)).toEqual([1n]);
    expect(bob).toEqual([]);
    expect(r.sent).toHaveLength(2);
  });

  it('keeps statements of other texts, and of other pools, apart', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const replica = {};
    await Promise.all([
      run(pool, byKeys([1n], 'alice')),
      run(pool, byKeys([3n], 'alice', `${TEXT} `)),
      run(replica, byKeys([5n], 'alice')),
    ]);
    expect(r.sent).toHaveLength(3);
  });

  it('sends a read alone in its turn as it was asked (the same statement object)', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const statement = byKeys([3n], 'alice');
    expect(ids(await run<Row>(pool, statement))).toEqual([3n]);
    expect(r.sent).toEqual([statement]);
  });

  it('sends a read at once, in its own turn, while its pool has nothing in flight', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    const statement = byKeys([3n], 'alice');
    const pending = run<Row>(pool, statement);
    expect(r.sent).toEqual([statement]);
    expect(ids(await pending)).toEqual([3n]);
  });

  it('sends a lookup of one key as it is, and lookups that join it over their keys (`readsByKey`)', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const alone = lookup(5n, 'bob');
    const [a, b, c] = await Promise.all([
      run<Row>(pool, lookup(1n, 'alice')),
      run<Row>(pool, lookup(3n, 'alice')),
      run<Row>(pool, alone),
    ]);
    expect(r.sent).toEqual([{ text: TEXT, values: [[1n, 3n], 'alice'] }, alone]);
    expect(ids(a!)).toEqual([1n]);
    expect(ids(b!)).toEqual([3n]);
    expect(c).toEqual([]);
  });

  it('sends lookups of one turn that all ask the same key as the lookup of that key, not over keys', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const [a, b, c] = await Promise.all([
      run<Row>(pool, lookup(3n, 'alice')),
      run<Row>(pool, lookup(3n, 'alice')),
      run<Row>(pool, lookup(3n, 'alice')),
    ]);
    // One statement for the three, in the form of one key (PostgreSQL plans `= ANY($1)` for many).
    expect(r.sent).toEqual([{ text: SCALAR, values: [3n, 'alice'] }]);
    expect([a, b, c].map((rows) => ids(rows!))).toEqual([[3n], [3n], [3n]]);
    // Each caller gets rows of its own: a caller changing its rows changes nobody else's.
    expect(a).not.toBe(b);
  });

  it('passes unmarked statements straight through, in the same turn', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const plain = { text: TEXT, values: [[1n], 'alice'] };
    const pending = run(pool, plain);
    expect(r.sent).toEqual([plain]);
    await pending;
  });

  it('fails every caller of a statement that fails, and the next turn starts afresh', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    r.fail(new Error('canceling statement due to statement timeout'));
    const results = await Promise.allSettled([run(pool, byKeys([1n], 'alice')), run(pool, byKeys([3n], 'alice'))]);
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    r.fail(null);
    expect(ids(await run<Row>(pool, byKeys([5n], 'alice')))).toEqual([5n]);
  });

  it(`sends at most ${MAX_COALESCED_KEYS} keys in one statement`, async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const reads = Array.from({ length: MAX_COALESCED_KEYS + 10 }, (_, i) =>
      run(pool, byKeys([BigInt(i + 1)], 'alice')),
    );
    await Promise.all(reads);
    expect(r.sent.map((s) => (s.values[0] as bigint[]).length)).toEqual([MAX_COALESCED_KEYS, 10]);
  });

  it('sends identical shared statements of one turn once, every caller getting the rows; others apart', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const shared = () => readsShared({ text: TEXT, values: [[1n, 3n], 'alice'] });
    const [a, b, c] = await Promise.all([
      run<Row>(pool, shared()),
      run<Row>(pool, shared()),
      run<Row>(pool, readsShared({ text: TEXT, values: [[1n, 3n], 'bob'] })),
    ]);
    expect(r.sent).toHaveLength(2);
    expect(ids(a!)).toEqual([1n, 3n]);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    expect(c).toEqual([]);
  });

  it("sends a root page's shared read (`'busy'`) at once while its pool is idle, and shares it only when held", async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    const page = () => readsShared({ text: TEXT, values: [[1n, 3n], 'alice'] }, 'busy');
    const alone = page();
    const first = run<Row>(pool, alone);
    // Nothing in flight, nothing held: sent in this turn, as it was asked.
    expect(r.sent).toEqual([alone]);
    // Asked while it is in flight: never joined to a statement already sent (it could have started
    // before this caller's own write committed); held, and the ones of this turn share one statement.
    const [b, c, d] = await Promise.all([
      run<Row>(pool, page()),
      run<Row>(pool, page()),
      run<Row>(pool, readsShared({ text: TEXT, values: [[1n, 3n], 'bob'] }, 'busy')),
    ]);
    expect(ids(await first)).toEqual([1n, 3n]);
    expect(r.sent).toHaveLength(3);
    expect(ids(b!)).toEqual([1n, 3n]);
    expect(c).toEqual(b);
    expect(d).toEqual([]);
  });

  it("holds an event's shared read (`'turn'`, the default) for the turn even while its pool is idle", async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    const pending = run<Row>(pool, readsShared({ text: TEXT, values: [[1n], 'alice'] }));
    expect(r.sent).toHaveLength(0);
    expect(ids(await pending)).toEqual([1n]);
    expect(r.sent).toHaveLength(1);
  });

  it.each([
    {
      what: 'a shared statement with a keyed one of the same text and values',
      reads: (keys: bigint[]) => [
        readsShared({ text: TEXT, values: [keys, 'alice'] }),
        readsByKeys({ text: TEXT, values: [keys, 'alice'] }, keys, 'c0'),
      ],
    },
    {
      what: 'a bigint value with a string that reads like it (`1n` against "1n")',
      reads: (keys: bigint[]) => [byKeys([1n], '1n'), readsByKeys({ text: TEXT, values: [keys, 1n] }, keys, 'c0')],
    },
  ])('never coalesces $what', async ({ reads }) => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    await Promise.all(reads([3n]).map((statement) => run(pool, statement)));
    expect(r.sent).toHaveLength(2);
  });

  it('fails every caller of a batch whose statement over many keys cannot be written, and nothing else', async () => {
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const broken = (id: bigint) =>
      readsByKey({ text: 'SCALAR', values: [id, 'alice'] }, id, 'c0', () => {
        throw new Error('cannot write it');
      });
    const results = await Promise.allSettled([run(pool, broken(1n)), run(pool, broken(3n))]);
    expect(results.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    expect(r.sent).toEqual([]);
    expect(ids(await run<Row>(pool, byKeys([5n], 'alice')))).toEqual([5n]);
  });

  it('does not mark a statement whose keys it cannot find by identity, or finds twice', () => {
    const keys = [1n];
    const r = recordingRunner();
    const run = coalescing(r.run);
    r.busy(run, pool);
    const twice = readsByKeys({ text: TEXT, values: [keys, keys] }, keys, 'c0');
    const absent = readsByKeys({ text: TEXT, values: [[1n], 'alice'] }, keys, 'c0');
    void run(pool, twice);
    void run(pool, absent);
    // Both went straight through: not held for the turn's batch.
    expect(r.sent).toEqual([twice, absent]);
  });
});
