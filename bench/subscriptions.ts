/**
 * The subscriptions benchmark of issue 13: `npm run bench -- --subscriptions` (or on its own,
 * `npm run build:bench && node dist/bench/subscriptions.js [--quick] [--subscribers N] [--duration S]
 * [--relations] [--baseline DIR]`): `--relations` has every subscriber select the item's pet and its
 * category (the relations of each event are then read); `--baseline DIR` measures that checkout's build).
 *
 * On a seeded PostgreSQL database (seed.ts) and the gateway as shipped (T3, targets.ts):
 * 1. W4 (placeOrder at 32 connections over the 100 W4 pets) with no subscriber: throughput, with
 *    the store-event triggers disabled (no NOTIFY) and enabled (the cost of publishing).
 * 2. N graphql-ws subscribers (default 1,000, one connection each, in a child process:
 *    subscribers-child.ts), subscriber i on `stockChanged(petIds: [<W4 pet i % 100>])`, every 10th
 *    also on pet 500: every W4 order reaches 10 of them. The server's RSS before and after they
 *    connect gives the RSS per subscriber.
 * 3. W4 again while they listen, plus a probe: every 100 ms an autocommit `UPDATE` of pet 500's
 *    stock on its own connection (not queued behind W4's HTTP requests). Latency = arrival at a
 *    subscriber minus the moment the UPDATE was sent (an upper bound of commit-to-delivery), p50/p99
 *    over every delivery; and W4's throughput with subscribers.
 * Writes bench/results/subscriptions-latest.json and prints a markdown table. Not a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fork } from 'node:child_process';
import { Client as PgClient } from 'pg';
import { projectRoot } from '../src/config';
import { percentile, runLoad, type LoadResult } from './load';
import { createApiKey, DATA, seedPostgres } from './seed';
import { baseline, startTarget } from './targets';

/** A pet outside W4's 1..100 whose stock the probe sets directly in SQL. */
const PROBE_PET = '500';
/** Every PROBE_EVERY-th subscriber also subscribes to the probe pet (the latency sample). */
const PROBE_EVERY = 10;

export interface SubscriptionBenchResult {
  subscribers: number;
  connected: number;
  /** W4 with the store-event triggers disabled (no NOTIFY at all). */
  w4NoNotify: LoadResult;
  w4Without: LoadResult;
  w4With: LoadResult;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPerSubscriberKb: number;
  probes: number;
  deliveries: number;
  expectedDeliveries: number;
  /** Every event the subscribers received while W4 ran (W4's stock events and the probes). */
  messagesDelivered: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  note: string;
}

export async function runSubscriptionBench(opts: {
  subscribers: number;
  durationSec: number;
  adminUrl: string;
  /** Subscribers also select each item's pet and its category (`--relations`). */
  relations?: boolean;
  /** The gateway measured: T3, or T3base (`--baseline DIR`, for a lever's A/B). */
  target?: 'T3' | 'T3base';
}): Promise<SubscriptionBenchResult> {
  const data = await seedPostgres(opts.adminUrl);
  const dbEnv = { DATABASE_URL: data.url };
  const { key } = createApiKey(dbEnv);
  if (!key) throw new Error('this build has no API keys');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const target = await startTarget(opts.target ?? 'T3', 'postgres', dbEnv, {
    RATE_LIMIT_MAX: '10000000',
    SUBSCRIPTION_CONNECTIONS_PER_ADDRESS: String(opts.subscribers + 10),
    SUBSCRIPTION_CONNECTIONS_PER_KEY: String(opts.subscribers + 10),
    SUBSCRIPTION_BUFFERED_EVENTS: '1000',
  });
  let stopChild = () => undefined as unknown;
  try {
    const load = () =>
      runLoad({
        url: target.url,
        workload: 'W4',
        data: { pets: DATA.pets, w4Pets: DATA.w4Pets },
        connections: 32,
        durationSec: opts.durationSec,
        headers,
      });
    await runLoad({
      url: target.url,
      workload: 'W4',
      data: { pets: DATA.pets, w4Pets: DATA.w4Pets },
      connections: 32,
      durationSec: 2,
      headers,
    }); // warm-up
    // The write path's cost of publishing: W4 with the store-event triggers disabled, then enabled.
    await triggers(data.url, 'DISABLE');
    const w4NoNotify = await load();
    await triggers(data.url, 'ENABLE');
    const w4Without = await load();

    await new Promise((r) => setTimeout(r, 1000));
    const rssBeforeMb = target.rssMb();
    const child = fork(path.join(__dirname, 'subscribers-child.js'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    stopChild = () => child.kill();
    const ask = <T>(message: object, reply: string) =>
      new Promise<T>((resolve) => {
        const on = (m: { type: string }) => {
          if (m.type !== reply) return;
          child.off('message', on);
          resolve(m as T);
        };
        child.on('message', on);
        child.send(message);
      });
    const { connected: live } = await ask<{ connected: number }>(
      {
        type: 'start',
        url: target.url,
        key,
        subscribers: opts.subscribers,
        w4Pets: DATA.w4Pets,
        probePet: PROBE_PET,
        probeEvery: PROBE_EVERY,
        relations: opts.relations ?? false,
      },
      'started',
    );
    const probeSubscribers = Math.ceil(live / PROBE_EVERY);
    const arrivalsOf = (ids: string[]) =>
      ask<{ received: number; arrivals: Record<string, number[]> }>({ type: 'arrivals', ids }, 'arrivals');
    const sql = new PgClient({ connectionString: data.url });
    await sql.connect();
    let quantity = 1_000;
    const setProbe = async () => {
      const q = ++quantity;
      const sent = performance.timeOrigin + performance.now();
      await sql.query('UPDATE inventory_items SET quantity = $1, updated_at = now() WHERE pet_id = $2', [q, PROBE_PET]);
      return { id: String(q), sent };
    };
    // Subscriptions are live once a probe reaches every subscriber.
    for (let tries = 0; tries < 100; tries++) {
      const { id } = await setProbe();
      await new Promise((res) => setTimeout(res, 200));
      if (((await arrivalsOf([id])).arrivals[id]?.length ?? 0) >= probeSubscribers) break;
    }
    await new Promise((r) => setTimeout(r, 1000));
    const rssAfterMb = target.rssMb();
    const receivedBefore = (await arrivalsOf([])).received;

    // The probe: pet 500's stock set every 100 ms, while W4 runs.
    const answered = new Map<string, number>();
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const { id, sent } = await setProbe();
        answered.set(id, sent);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    const w4With = await load();
    probing = false;
    await probe;
    await new Promise((r) => setTimeout(r, 2000));
    await sql.end();

    const { received, arrivals } = await arrivalsOf([...answered.keys()]);
    const latencies: number[] = [];
    for (const [id, at] of answered) for (const t of arrivals[id] ?? []) latencies.push(Math.max(0, t - at));
    const sorted = Float64Array.from(latencies).sort();
    return {
      subscribers: opts.subscribers,
      connected: live,
      w4NoNotify,
      w4Without,
      w4With,
      rssBeforeMb,
      rssAfterMb,
      rssPerSubscriberKb: ((rssAfterMb - rssBeforeMb) * 1024) / Math.max(1, live),
      probes: answered.size,
      deliveries: latencies.length,
      expectedDeliveries: answered.size * probeSubscribers,
      messagesDelivered: received - receivedBefore,
      latencyP50Ms: percentile(sorted, 50),
      latencyP99Ms: percentile(sorted, 99),
      latencyMaxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
      note: 'latency: from sending the probe UPDATE (autocommit) to its arrival at each of the subscribers on pet 500; subscribers run in a child process; the machine is shared',
    };
  } finally {
    stopChild();
    await target.stop();
    await data.drop();
  }
}

async function triggers(url: string, action: 'ENABLE' | 'DISABLE'): Promise<void> {
  const c = new PgClient({ connectionString: url });
  await c.connect();
  try {
    await c.query(`ALTER TABLE orders ${action} TRIGGER orders_store_events`);
    await c.query(`ALTER TABLE inventory_items ${action} TRIGGER inventory_items_store_events_insert`);
    await c.query(`ALTER TABLE inventory_items ${action} TRIGGER inventory_items_store_events_update`);
    await c.query(`ALTER TABLE pets ${action} TRIGGER pets_store_events_status`);
  } finally {
    await c.end();
  }
}

export function subscriptionTable(r: SubscriptionBenchResult): string {
  const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
  return [
    `| subscribers | W4 rps: no NOTIFY / NOTIFY, 0 subscribers / NOTIFY, N subscribers | W4 p99 ms (same three) | delivery p50 ms | delivery p99 ms | deliveries | RSS per subscriber |`,
    `|---|---|---|---|---|---|---|`,
    `| ${r.connected}/${r.subscribers} | ${f(r.w4NoNotify.rps, 0)} / ${f(r.w4Without.rps, 0)} / ${f(r.w4With.rps, 0)} | ${f(r.w4NoNotify.p99)} / ${f(r.w4Without.p99)} / ${f(r.w4With.p99)} | ${f(r.latencyP50Ms)} | ${f(r.latencyP99Ms)} | ${r.deliveries}/${r.expectedDeliveries} (all events: ${r.messagesDelivered}) | ${f(r.rssPerSubscriberKb)} KiB |`,
  ].join('\n');
}

/** The command line (`npm run bench -- --subscriptions ...`, see bench/run.ts). */
export async function subscriptionsMain(): Promise<void> {
  const { values } = parseArgs({
    options: {
      subscriptions: { type: 'boolean', default: true },
      quick: { type: 'boolean', default: false },
      subscribers: { type: 'string', default: '1000' },
      duration: { type: 'string' },
      relations: { type: 'boolean', default: false },
      baseline: { type: 'string' },
    },
  });
  if (values.baseline) baseline.dir = path.resolve(values.baseline);
  const result = await runSubscriptionBench({
    subscribers: Number(values.subscribers),
    durationSec: Number(values.duration ?? (values.quick ? 3 : 10)),
    adminUrl: process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test',
    relations: values.relations,
    target: values.baseline ? 'T3base' : 'T3',
  });
  console.log(
    `gateway: ${values.baseline ? `T3base (${values.baseline})` : 'T3'}; subscribers select relations: ${values.relations}`,
  );
  const out = path.join(projectRoot, 'bench', 'results', 'subscriptions-latest.json');
  fs.writeFileSync(out, JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2) + '\n');
  console.log(subscriptionTable(result));
  console.log(`\nwritten to ${path.relative(projectRoot, out)}`);
}

if (require.main === module) {
  subscriptionsMain().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
