/**
 * Store events: what GraphQL subscriptions deliver (docs/subscriptions.md).
 *
 * The database publishes them itself: row triggers created by the `store_events` migration call
 * `pg_notify('store_events', <json>)` inside the writing transaction, so PostgreSQL delivers an event
 * when, and only if, its change commits, in commit order, to every process LISTENing on the channel,
 * whatever code made the change. Each process LISTENs once (`Database.listen`) and fans events out in
 * memory to its subscribers (`StoreEventHub`).
 *
 * Payloads carry ids and the changed fields only (NOTIFY's limit is 8,000 bytes); the subscription
 * resolvers load anything else a client selects through the per-event DataLoaders.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database';
import type { Unlisten } from '../../db/listen';
import { PET_STATUSES, type PetStatus } from '../pets/pet-status';

/** The channel the triggers notify on (prisma/migrations/*_store_events). */
export const STORE_EVENTS_CHANNEL = 'store_events';

export type OrderEventKind = 'placed' | 'completed' | 'cancelled';

/** A pet's stock and status as a committed transaction left them. */
export interface StockEvent {
  type: 'stock';
  petId: bigint;
  quantity: number;
  status: PetStatus;
}

/** An order placed, completed or cancelled, with the order as it was after that change. */
export interface OrderEvent {
  type: 'order';
  kind: OrderEventKind;
  order: { id: bigint; petId: bigint | null; quantity: number; shipDate: Date | null; complete: boolean };
  /** Who placed it (orders.owner): who may see its events (src/modules/orders/order.access.ts). */
  owner: string | null;
}

export type StoreEvent = StockEvent | OrderEvent;

/**
 * A notification's payload as a StoreEvent, or null when it is not one (never thrown: logged). Anyone
 * connected to the database may NOTIFY on the channel: a throw here, in the LISTEN connection's
 * handler, stopped the process (an id that is not an integer, which BigInt refuses).
 */
export function parseStoreEvent(payload: string): StoreEvent | null {
  try {
    return storeEvent(JSON.parse(payload) as Record<string, unknown>);
  } catch {
    return null;
  }
}

const ORDER_EVENT_KINDS: readonly unknown[] = ['placed', 'completed', 'cancelled'] satisfies OrderEventKind[];

/**
 * The event a parsed payload describes, or null: only values its fields can be served as (a quantity
 * that is not an integer, an unknown status or kind, a date that is not one reached every subscriber
 * as an INTERNAL error, logged once per subscriber). Throws on what is not an object, or an id BigInt
 * refuses.
 */
function storeEvent(raw: Record<string, unknown>): StoreEvent | null {
  if (raw.type === 'stock' && typeof raw.petId === 'string') {
    const { quantity, status } = raw;
    if (!Number.isInteger(quantity) || !PET_STATUSES.includes(status as PetStatus)) return null;
    return { type: 'stock', petId: BigInt(raw.petId), quantity: quantity as number, status: status as PetStatus };
  }
  if (raw.type === 'order' && raw.order && typeof raw.order === 'object' && ORDER_EVENT_KINDS.includes(raw.kind)) {
    const o = raw.order as Record<string, unknown>;
    const shipDate = o.shipDate == null ? null : new Date(o.shipDate as string);
    if (!Number.isInteger(o.quantity) || Number.isNaN(shipDate?.getTime())) return null;
    return {
      type: 'order',
      kind: raw.kind as OrderEventKind,
      order: {
        id: BigInt(o.id as string),
        petId: o.petId == null ? null : BigInt(o.petId as string),
        quantity: o.quantity as number,
        shipDate,
        complete: o.complete === true,
      },
      owner: typeof o.owner === 'string' ? o.owner : null,
    };
  }
  return null;
}

/** What a subscriber is told when it cannot keep up or the event source is lost. */
export interface SubscriberOptions {
  /** Events held for a subscriber that has not taken them yet; one more is an overflow. */
  maxBuffered: number;
  /** Called once, when the buffer would exceed `maxBuffered`; the subscription has ended. */
  onOverflow(): void;
}

/**
 * One subscriber's stream: a bounded queue read as an async iterator (what graphql-js's `subscribe`
 * consumes). Written here because the one behaviour that matters, a hard bound on what a slow reader
 * makes the server hold, is what the generic pubsubs (graphql-yoga's createPubSub over Repeater,
 * graphql-subscriptions' PubSub, Node's `events.on`) leave unbounded or answer by pausing the source.
 */
class Subscriber<T> implements AsyncIterableIterator<T> {
  readonly #queue: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | null = null;
  #done = false;

  constructor(
    readonly select: (event: StoreEvent) => T | undefined,
    private readonly options: SubscriberOptions,
    private readonly detach: (s: Subscriber<T>) => void,
  ) {}

  push(event: StoreEvent): void {
    if (this.#done) return;
    const value = this.select(event);
    if (value === undefined) return;
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = null;
      resolve({ value, done: false });
    } else if (this.#queue.length >= this.options.maxBuffered) {
      this.#queue.length = 0;
      this.#finish();
      this.options.onOverflow();
    } else {
      this.#queue.push(value);
    }
  }

  /** Ends the stream once what is queued has been taken (shutdown: in-flight events are delivered). */
  end(): void {
    if (this.#done) return;
    this.detach(this);
    if (this.#queue.length === 0) this.#finish();
    else this.#ending = true;
  }

  #ending = false;

  #finish(): void {
    this.#done = true;
    this.detach(this);
    const resolve = this.#waiting;
    this.#waiting = null;
    resolve?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const value = this.#queue.shift();
    if (value !== undefined) {
      if (this.#ending && this.#queue.length === 0) this.#done = true;
      return Promise.resolve({ value, done: false });
    }
    if (this.#done || this.#ending) {
      this.#done = true;
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return(): Promise<IteratorResult<T>> {
    this.#queue.length = 0;
    this.#finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

/** The in-process fan-out of store events to subscribers. */
export class StoreEventHub {
  readonly #subscribers = new Set<Subscriber<unknown>>();

  /** Open subscriptions in this process (for metrics). */
  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * A stream of `select(event)` for every event from now on where it is not undefined. Ended by the
   * consumer (`return`), by `endAll`, or by an overflow.
   */
  subscribe<T>(select: (event: StoreEvent) => T | undefined, options: SubscriberOptions): AsyncIterableIterator<T> {
    const subscriber = new Subscriber<T>(select, options, (s) => this.#subscribers.delete(s as Subscriber<unknown>));
    this.#subscribers.add(subscriber as Subscriber<unknown>);
    return subscriber;
  }

  publish(event: StoreEvent): void {
    for (const subscriber of this.#subscribers) subscriber.push(event);
  }

  /** Ends every stream after its queued events (shutdown). */
  endAll(): void {
    for (const subscriber of [...this.#subscribers]) subscriber.end();
  }
}

export interface StoreEvents {
  hub: StoreEventHub;
  /** Whether the channel is being listened to now (events are being missed while it is not). */
  readonly listening: boolean;
  /** Called when listening stops (the LISTEN connection was lost) and when it resumes. */
  onStateChange(listener: (listening: boolean) => void): void;
  stop: Unlisten;
}

/**
 * Publishes to `hub`, each event only once `before()` has run after it was heard (in the order heard):
 * events heard while a `before()` runs wait for the next one, which then serves them all. With no
 * subscriber and nothing waiting, an event goes at once.
 */
function publishAfter(hub: StoreEventHub, before: () => Promise<void>): (event: StoreEvent) => void {
  let running = false;
  let next: StoreEvent[] | null = null;
  const run = (events: StoreEvent[]): void => {
    running = true;
    void before()
      .catch(() => undefined)
      .then(() => {
        for (const event of events) hub.publish(event);
        const waiting = next;
        next = null;
        if (waiting) run(waiting);
        else running = false;
      });
  };
  return (event) => {
    if (running) (next ??= []).push(event);
    else if (hub.size === 0) hub.publish(event);
    else run([event]);
  };
}

/**
 * LISTENs on the store-events channel and publishes what it hears to a new hub. A lost LISTEN
 * connection (PostgreSQL) reconnects by itself (src/db/listen.ts); the gap is logged, with its
 * length, because events committed meanwhile were not delivered to anyone in this process.
 * `beforePublish`: what must be done before subscribers hear of a change (the response cache in
 * Redis moves on past it, src/graphql/response-cache.ts), awaited before each publication.
 */
export async function startStoreEvents(
  db: Database,
  log: FastifyBaseLogger,
  beforePublish?: () => Promise<void>,
): Promise<StoreEvents> {
  const hub = new StoreEventHub();
  const publish = beforePublish ? publishAfter(hub, beforePublish) : (event: StoreEvent) => hub.publish(event);
  const listeners: ((listening: boolean) => void)[] = [];
  let listening = false;
  let lostAt: number | null = null;
  const stop = await db.listen(STORE_EVENTS_CHANNEL, {
    onNotify(payload) {
      const event = parseStoreEvent(payload);
      if (event) publish(event);
      else
        log.warn(
          { payload: payload.slice(0, 200) },
          'store events: a notification that is not a store event was ignored',
        );
    },
    onState(up, error) {
      if (up === listening) return;
      listening = up;
      if (up) {
        if (lostAt !== null) {
          log.warn(
            { gapMs: Date.now() - lostAt, since: new Date(lostAt).toISOString() },
            'store events: LISTEN connection re-established; events committed during the gap were not delivered (subscribers were disconnected to refetch)',
          );
        }
        lostAt = null;
      } else if (error) {
        lostAt ??= Date.now();
        log.error({ err: error }, 'store events: LISTEN connection lost (reconnecting); events are being missed');
      }
      for (const listener of listeners) listener(up);
    },
  });
  return {
    hub,
    get listening() {
      return listening;
    },
    onStateChange: (listener) => void listeners.push(listener),
    stop,
  };
}
