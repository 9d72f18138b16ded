/**
 * Subscriptions across gateway processes on one PostgreSQL database: a subscriber connected to
 * process B hears a change made through process A, because the database publishes the event
 * (NOTIFY in the writing transaction) to every process's LISTEN. And a lost LISTEN connection is
 * re-established, its gap logged, and the subscribers told to reconnect. Needs a PostgreSQL server
 * (TEST_DATABASE_URL, as CI sets it); the embedded database is single-process by design. The
 * shutdown of a process with open subscriptions runs on the embedded database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { usingPostgres } from '../helpers/test-database';
import { gqlOk, petInStock, startProcessPair, type ProcessPair } from '../helpers/gateway-fixture';
import { connectWs, subscribe, until } from '../helpers/ws-client';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

let auth: Record<string, string> = {};

const ok = (url: string, query: string, variables: Record<string, unknown> = {}) => gqlOk(url, query, variables, auth);

const describeWithPostgres = describeIf(usingPostgres(), NEEDS_POSTGRES);

describeWithPostgres('subscriptions across two gateway processes on one PostgreSQL database', () => {
  let pair: ProcessPair | undefined;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    pair = await startProcessPair();
    servers = pair.servers;
    auth = pair.admin;
  });

  afterAll(async () => {
    await pair?.dispose();
  });

  it('a subscriber on B hears an order placed through A (the delay is logged; speed belongs in the bench)', async () => {
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const petId = await petInStock(a, auth, 5);
    await ok(a, 'mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 5 }) { quantity } }', { p: petId });

    const c = connectWs(b, { connectionParams: { Authorization: auth.authorization } });
    const orders = subscribe(c, `subscription($p: [ID!]) { orderEvents(petIds: $p) { kind order { id quantity } } }`, {
      p: [petId],
    });
    // B's subscription is live once a change through A reaches it (a stock subscription as the probe).
    const probe = subscribe(c, `subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }`, { p: [petId] });
    for (let q = 6; probe.results.length === 0; q++) {
      await ok(a, 'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }', {
        p: petId,
        q,
      });
      await new Promise((r) => setTimeout(r, 100));
    }

    const started = Date.now();
    const { placeOrder } = await ok(a, 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 2 }) { id } }', {
      p: petId,
    });
    const [event] = await orders.take(1);
    const elapsed = Date.now() - started;
    expect(event!.data!.orderEvents).toEqual({ kind: 'PLACED', order: { id: placeOrder.id, quantity: 2 } });
    console.info(`subscription-processes: placed through A, heard on B after ${elapsed} ms (request included)`);
    await c.dispose();
  });

  it('ignores, with a warning, a notification on the channel that is not a store event, and goes on', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const petId = await petInStock(a.url, auth, 5);
    const c = connectWs(b.url);
    const stock = subscribe(c, `subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }`, { p: [petId] });
    const setStock = (q: number) =>
      ok(a.url, 'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }', {
        p: petId,
        q,
      });
    for (let q = 6; stock.results.length === 0; q++) {
      await setStock(q);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Anyone connected to the database may NOTIFY on any channel. An id BigInt refuses was thrown in
    // the LISTEN connection's handler: every process stopped ("shutting down after an uncaught error").
    // Fields no event can be served with reached each subscriber as an INTERNAL error.
    const admin = new Client({ connectionString: pair!.databaseUrl });
    await admin.connect();
    const payloads = [
      '{"type":"stock","petId":"x"}',
      '{"type":"order","kind":"placed","order":{}}',
      'null',
      `{"type":"stock","petId":"${petId}"}`,
      `{"type":"stock","petId":"${petId}","quantity":3,"status":"lost"}`,
      `{"type":"order","kind":"shipped","order":{"id":"1","petId":"${petId}","quantity":1}}`,
    ];
    for (const payload of payloads) await admin.query(`SELECT pg_notify('store_events', $1)`, [payload]);
    await admin.end();
    const seen = stock.results.length;
    await setStock(100);
    await until(() => stock.results.length > seen);
    expect(stock.results.slice(seen)).toEqual([{ data: { stockChanged: { quantity: 100 } } }]);
    const ignored = (s: ServerProcess) => s.output.filter((l) => l.includes('not a store event was ignored')).length;
    await until(() => ignored(a) === payloads.length && ignored(b) === payloads.length);
    expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);
    await c.dispose();
  });

  it('re-establishes a lost LISTEN connection, logs the gap, and tells subscribers to reconnect (1013)', async () => {
    const b = servers[1]!;
    const c = connectWs(b.url);
    subscribe(c, `subscription { stockChanged { quantity } }`);
    await c.connected;
    const admin = new Client({ connectionString: pair!.databaseUrl });
    await admin.connect();
    // Every LISTEN connection of the database (both processes' key and event listeners).
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'petstore-listen'`,
    );
    await admin.end();
    expect(await c.closed).toMatchObject({ code: 1013 });
    await until(() => b.output.some((line) => line.includes('store events: LISTEN connection re-established')));
    const line = JSON.parse(b.output.find((l) => l.includes('store events: LISTEN connection re-established'))!);
    expect(line.gapMs).toEqual(expect.any(Number));
    await c.dispose();
  });

  // Last: it stops A. A rolling restart behind a load balancer (the proxy): A is told to stop, the
  // balancer sends new connections to B.
  it("on one process's SIGTERM, a graphql-ws client with its defaults subscribes again on the other and goes on", async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const p = await petInStock(a.url, auth, 0);
    const stock = (url: string, q: number) =>
      ok(url, 'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }', {
        p,
        q,
      });
    const balancer = await startTcpProxy('127.0.0.1', Number(new URL(a.url).port));
    const heard: number[] = [];
    const ended: string[] = [];
    const client = createClient({ url: `ws://127.0.0.1:${balancer.port}/graphql`, webSocketImpl: WebSocket });
    try {
      client.subscribe<{ stockChanged: { quantity: number } }>(
        { query: 'subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }', variables: { p: [p] } },
        {
          next: (r) => void heard.push(r.data!.stockChanged.quantity),
          error: (e) => void ended.push(`error ${JSON.stringify(e)}`),
          complete: () => void ended.push('complete'),
        },
      );
      for (let q = 1; heard.length === 0; q++) {
        await stock(a.url, q);
        await new Promise((r) => setTimeout(r, 100));
      }
      balancer.retarget('127.0.0.1', Number(new URL(b.url).port));
      expect(await a.stop('SIGTERM')).toBe(0);
      // graphql-ws waits 1.3-4 s before its first reconnect: changes through B until one is heard.
      const deadline = Date.now() + 30_000;
      let q = 1000;
      while (!heard.includes(q - 1) && ended.length === 0 && Date.now() < deadline) {
        await stock(b.url, q++);
        await new Promise((r) => setTimeout(r, 200));
      }
      // The same subscription, never ended: a complete (what A sent before) ended it for good.
      expect(ended).toEqual([]);
      expect(heard).toContain(q - 1);
    } finally {
      await client.dispose();
      await balancer.close();
    }
  }, 120_000);
});

describe('a gateway process with open subscriptions (embedded database)', () => {
  // Starting a process is slow on a busy machine.
  jest.setTimeout(120_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-subs-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('on SIGTERM ends the subscriptions without a complete, closes the sockets with 1001, and exits 0', async () => {
    const server = await startServerProcess({ PGLITE_DATA_DIR: dataDir });
    const c = connectWs(server.url);
    const stock = subscribe(c, `subscription { stockChanged { quantity } }`);
    await c.connected;
    const exit = server.stop('SIGTERM');
    // This client does not retry: its subscription errors with the close (a complete would end it
    // for good in a client that does: the test above).
    const outcome = await Promise.race([stock.completed.then(() => 'complete'), stock.error.then(() => 'closed')]);
    expect(outcome).toBe('closed');
    expect(await c.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(await exit).toBe(0);
    await c.dispose();
  });
});
