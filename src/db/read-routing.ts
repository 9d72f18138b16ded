/**
 * Where a read goes when the database has streaming replicas (DATABASE_REPLICA_URLS): to a replica
 * that answers, unless the caller must see the primary.
 *
 * - The request's scope (an AsyncLocalStorage, so that no reader call site has to pass it): who is
 *   calling (an API key, or the client address when anonymous) and whether this request writes (a
 *   GraphQL mutation: its own answer is read from the primary).
 * - Read-your-writes: a caller that wrote reads from the primary for DB_READ_YOUR_WRITES_MS, longer
 *   than a replica's usual lag, so a client never misses its own write. With REDIS_URL the window is
 *   shared by every gateway process (`SharedReadYourWrites`), so a load balancer may send the next
 *   request to any of them; while Redis cannot be asked, reads go to the primary (never stale).
 * - Replica health: a replica whose statement fails at the connection level is taken out at once
 *   (the read is retried elsewhere: reads change nothing), checked every DB_REPLICA_CHECK_MS, and
 *   taken back when a check succeeds and it is still a standby.
 *
 * Rails' and Django's replica routers, and Prisma's read-replicas extension, work the same way; none
 * fits a driver-level reader shared with Prisma, hence written here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** What the reader needs to know about the request it serves. */
export interface ReadScope {
  /** The caller's identity for read-your-writes (`key:<id>` or `addr:<ip>`); undefined: nobody in particular. */
  caller(): string | undefined;
  /** Reads go to the primary (a mutation's request, a readiness check). */
  primary: boolean;
  /** This request wrote: its caller's read-your-writes window starts again when it ends. */
  wrote?: boolean;
  /** Called by markWrite (starts the caller's read-your-writes window); resolves once it is recorded. */
  onWrite?: () => Promise<void> | void;
}

const scopes = new AsyncLocalStorage<ReadScope>();

/** The scope of the request being served, if any (subscriptions' events have none: replica reads). */
export function currentReadScope(): ReadScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` (and everything it starts) within `scope`. */
export function runInReadScope<T>(scope: ReadScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/**
 * Marks the current request as writing: its reads go to the primary from now on. Resolves once the
 * caller's window is recorded (in Redis too, when shared), so it holds before the write is answered.
 */
export async function markWrite(): Promise<void> {
  const scope = scopes.getStore();
  if (scope && !scope.wrote) {
    scope.primary = true;
    scope.wrote = true;
    await scope.onWrite?.();
  }
}

/** The few Redis commands the shared window needs (an ioredis client: the rate limit's connection). */
export interface PinStore {
  /** ioredis's connection state: commands are sent only while it is 'ready'. */
  readonly status: string;
  /** ioredis's connection events: 'close' (lost, or an attempt failed) and 'ready' (usable again). */
  on(event: 'close' | 'ready', listener: () => void): unknown;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  pttl(key: string): Promise<number>;
}

/**
 * Read-your-writes across processes: a caller's window is a Redis key that expires with it, written
 * before the write is answered and read at the start of each of the caller's requests (one command
 * each; the reader keeps deciding per statement from what it learnt). Fail safe: when Redis cannot
 * answer (down, reconnecting, a command timing out), the request reads from the primary, which is
 * never stale; a window that could not be written is logged, since other processes cannot see it.
 */
export class SharedReadYourWrites {
  #warned = false;
  /** The connection was lost (or never made) since it was last ready. */
  #interrupted: boolean;
  /**
   * Every caller reads from the primary until then: Redis came back from an outage, during which
   * windows could not be written, or in which they were lost (a restart, a failover to a replica
   * that had not received them). A window lasts `windowMs`, so one that long covers them all.
   */
  #resyncUntil = 0;
  /** Redis refused the windows' writes (takesWrites) at the last look. */
  #refused = false;

  constructor(
    private readonly redis: PinStore,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly log: (msg: string, err?: unknown) => void,
    /**
     * Whether Redis takes the counters' commands (the rate limit's view of the shared connection): a
     * Redis that refuses writes (OOM, READONLY) still answers PTTL "no window" for every caller, since
     * none could be written, though it is connected.
     */
    private readonly takesWrites: () => boolean = () => true,
  ) {
    this.#interrupted = redis.status === 'reconnecting';
    redis.on('close', () => {
      this.#interrupted = true;
    });
    redis.on('ready', () => {
      if (this.#interrupted) this.#resyncUntil = Date.now() + this.windowMs;
      this.#interrupted = false;
    });
  }

  async wrote(caller: string): Promise<void> {
    if (this.windowMs <= 0) return;
    try {
      if (this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}`);
      await this.redis.set(this.prefix + caller, '1', 'PX', this.windowMs);
      this.#warned = false;
    } catch (error) {
      if (!this.#warned)
        this.log('read-your-writes window not shared (Redis unavailable): other processes may read a replica', error);
      this.#warned = true;
    }
  }

  /** Whether `caller`'s reads must go to the primary: it wrote within the window, or Redis cannot tell. */
  async pinned(caller: string): Promise<boolean> {
    if (this.windowMs <= 0) return false;
    if (!this.takesWrites()) {
      this.#refused = true;
      return true;
    }
    if (this.#refused) {
      // Windows of the time Redis refused them were never written: as after an outage.
      this.#refused = false;
      this.#resyncUntil = Date.now() + this.windowMs;
    }
    if (this.redis.status !== 'ready' || Date.now() < this.#resyncUntil) return true;
    try {
      // -2: no such key (no recent write); anything else: the window is open.
      return (await this.redis.pttl(this.prefix + caller)) !== -2;
    } catch {
      return true;
    }
  }
}

/** Callers that wrote recently, each until its window ends; bounded (oldest entries go first). */
export class ReadYourWrites {
  readonly #until = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly limit = 100_000,
  ) {}

  wrote(caller: string, now = Date.now()): void {
    if (this.windowMs <= 0) return;
    this.#until.delete(caller);
    this.#until.set(caller, now + this.windowMs);
    if (this.#until.size > this.limit) {
      const oldest = this.#until.keys().next().value;
      if (oldest !== undefined) this.#until.delete(oldest);
    }
  }

  recent(caller: string | undefined, now = Date.now()): boolean {
    if (caller === undefined) return false;
    const until = this.#until.get(caller);
    if (until === undefined) return false;
    if (until > now) return true;
    this.#until.delete(caller);
    return false;
  }
}

/** A WAL position (`16/B374D848`) as a number, for comparing two. */
export function walPosition(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** One replica as the router sees it. */
export interface ReplicaState<P> {
  /** `replica-1`, `replica-2`, ... in DATABASE_REPLICA_URLS order: the metrics' and traces' pool name. */
  name: string;
  /** The URL without its password, for logs. */
  where: string;
  pool: P;
  up: boolean;
  /** Why it is out, while it is. */
  reason?: string;
  /**
   * While it is out and answers again: the primary's WAL position when it first did, which it must
   * have replayed before it is taken back.
   */
  catchUpTo?: string;
  /** Statements it served (a metrics counter reads it). */
  reads: number;
}

/** Whether a failed read may be retried on another server (the server, not the statement, failed). */
export function isRetryableReadError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  // 08: connection, 57P: shutdown/crash, 53: resources, 40001 and 57014 on a standby: recovery conflicts.
  return /^(08|57P|53)/.test(code) || code === '40001' || code === '57014' || code === '25006';
}

/**
 * The replica has not replayed the schema the statement reads yet (a migration applied on the primary
 * a moment ago: no such table, column, function or type there): the read is retried on another
 * replica or the primary, and the replica stays in (it is healthy, only behind).
 */
export function isSchemaBehindError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '42P01' || code === '42703' || code === '42883' || code === '42704';
}

export interface ReplicaRouterOptions<P> {
  replicas: { name: string; where: string; pool: P }[];
  /**
   * A server that answers: `standby` false for a primary; `replayed`, the WAL position a standby has
   * replayed (`pg_last_wal_replay_lsn()`, null before it has replayed anything).
   */
  probe(pool: P): Promise<{ standby: boolean; replayed: string | null }>;
  /** The primary's current WAL position (`pg_current_wal_lsn()`). */
  primaryPosition(): Promise<string>;
  checkMs: number;
  readYourWritesMs: number;
  log(level: 'warn' | 'info', msg: string): void;
}

/**
 * Picks the server of each read: a healthy replica in turn, or null for the primary. Replicas are
 * checked on a timer (unref'd) from `start()` until `stop()`.
 */
export class ReplicaRouter<P> {
  readonly replicas: ReplicaState<P>[];
  readonly writes: ReadYourWrites;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #checking = false;
  /** The reads waiting on each replica: taken out, it fails them at once (retried elsewhere). */
  readonly #waiting = new Map<ReplicaState<P>, Set<(error: Error) => void>>();

  constructor(private readonly options: ReplicaRouterOptions<P>) {
    this.replicas = options.replicas.map((r) => ({ ...r, up: true, reads: 0 }));
    this.writes = new ReadYourWrites(options.readYourWritesMs);
  }

  /** The replicas to try for a read in the current scope, in order; empty: read from the primary. */
  candidates(): ReplicaState<P>[] {
    const scope = currentReadScope();
    if (scope && (scope.primary || this.writes.recent(scope.caller()))) return [];
    const up = this.replicas.filter((r) => r.up);
    if (up.length <= 1) return up;
    const start = this.#next++ % up.length;
    return [...up.slice(start), ...up.slice(0, start)];
  }

  /**
   * `read` on `replica`, or a rejection as soon as the replica is taken out (a check got no answer
   * from it): a read in flight on a replica that hangs waits no longer than the check, not the
   * statement timeout. The abandoned statement ends by its own timeout; the read is retried elsewhere.
   */
  async whileIn<T>(replica: ReplicaState<P>, read: Promise<T>): Promise<T> {
    let leave!: (error: Error) => void;
    const out = new Promise<never>((_, reject) => (leave = reject));
    let waiting = this.#waiting.get(replica);
    if (!waiting) this.#waiting.set(replica, (waiting = new Set()));
    waiting.add(leave);
    try {
      return await Promise.race([read, out]);
    } finally {
      waiting.delete(leave);
    }
  }

  /** A read on `replica` failed at the server: out it goes until a check says it is back. */
  takeOut(replica: ReplicaState<P>, reason: string): void {
    if (!replica.up) return;
    replica.up = false;
    replica.reason = reason;
    this.options.log('warn', `${replica.name} (${replica.where}) taken out of reads: ${reason}`);
    for (const leave of this.#waiting.get(replica) ?? []) leave(new Error(`${replica.name} taken out: ${reason}`));
  }

  /** Checks every replica once; resolves when all checks are over. */
  async check(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      await Promise.all(
        this.replicas.map(async (r) => {
          try {
            // A replica that does not answer at all (a dead host, no RST) is out after a check's time,
            // not after the statement timeout: reads stop waiting on it from then on.
            let timer: NodeJS.Timeout | undefined;
            const standby = await Promise.race([
              this.options.probe(r.pool),
              new Promise<never>((_, reject) => {
                const limit = Math.max(1_000, this.options.checkMs);
                timer = setTimeout(() => reject(new Error(`no answer to a check within ${limit} ms`)), limit);
              }),
            ]).finally(() => clearTimeout(timer));
            if (!standby.standby) {
              this.takeOut(r, 'it is not a standby (promoted?): pg_is_in_recovery() is false');
              r.reason = 'not a standby (pg_is_in_recovery() is false)';
            } else if (!r.up) {
              await this.takeBackOnceCaughtUp(r, standby.replayed);
            }
          } catch (error) {
            const reason = (error as Error).message || String((error as { code?: string }).code);
            if (r.up) this.takeOut(r, reason);
            else r.reason = reason;
          }
        }),
      );
    } finally {
      this.#checking = false;
    }
  }

  /**
   * A replica that answers again is taken back once it has replayed what the primary had written
   * when it first answered: a standby accepts reads as soon as it is consistent, which after a
   * restart or an outage may be far behind (writes made while it was away, even ones it had served
   * before a crash), and its readers would get rows that are gone or miss rows that exist.
   */
  private async takeBackOnceCaughtUp(r: ReplicaState<P>, replayed: string | null): Promise<void> {
    if (r.catchUpTo === undefined) {
      try {
        r.catchUpTo = await this.options.primaryPosition();
      } catch {
        r.reason = "catching up: the primary's WAL position is unknown (the primary does not answer)";
        return;
      }
    }
    if (replayed === null || walPosition(replayed) < walPosition(r.catchUpTo)) {
      r.reason = `catching up: replayed ${replayed ?? 'nothing'} of ${r.catchUpTo}`;
      return;
    }
    r.up = true;
    r.reason = undefined;
    r.catchUpTo = undefined;
    this.options.log('info', `${r.name} (${r.where}) answers again: back in reads`);
  }

  start(): void {
    this.#timer = setInterval(() => void this.check(), this.options.checkMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
