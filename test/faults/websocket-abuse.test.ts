/**
 * Issue 23, items 2-9: what one anonymous client could do to the WebSocket surface and the edges it
 * exposed, against real processes (NODE_ENV=production) over real sockets. Each test failed on the
 * build before the fix (PETSTORE_SERVER_ENTRY=<old checkout>/dist/src/main.js runs it against one).
 */
import { freePort } from '../helpers/server-process';
import net from 'node:net';
import WebSocket from 'ws';
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';
import { rssMiB, sendAndHangUp, upgradeRequest } from '../helpers/raw-socket';
import { connectWs, subscribe } from '../helpers/ws-client';

jest.setTimeout(180_000);

/** POSTs `body` (JSON text as is, or a value to stringify) to /graphql. */
const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** `{"a":{"a":...1...}}`, `depth` objects deep, as JSON text (JSON.stringify would overflow its stack). */
const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** A graphql-ws ping as a client frame: text, masked with a zero key (so the payload reads as is). */
const PING_FRAME = (() => {
  const payload = Buffer.from(JSON.stringify({ type: 'ping' }));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]);
})();

/** A graphql-ws connection opened with `ws` directly (no client library): for misbehaving on purpose. */
async function rawGraphqlWs(url: string, connectionParams?: Record<string, unknown>): Promise<WebSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(JSON.stringify({ type: 'connection_init', payload: connectionParams }));
  await new Promise<void>((resolve, reject) => {
    ws.once('message', (data) => (JSON.parse(String(data)).type === 'connection_ack' ? resolve() : reject(data)));
    ws.once('close', (code) => reject(new Error(`closed with ${code}`)));
  });
  return ws;
}

/** Every (method, route) probed whose HTTP status (>= 400) differs from the status its body states. */
async function statusDisagreements(url: string): Promise<string[]> {
  const disagree: string[] = [];
  for (const path of ['/graphql', '/pets/1', '/store/orders', '/healthz', '/openapi.json', '/nope']) {
    for (const method of ['OPTIONS', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${url}${path}`, { method });
      const text = await response.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const stated = body?.errors?.[0]?.extensions?.status ?? body?.status;
      if (response.status >= 400 && stated !== response.status)
        disagree.push(`${method} ${path}: HTTP ${response.status}, body ${stated}`);
    }
  }
  return disagree;
}

describe('WebSocket abuse (production, practically no rate limit)', () => {
  let gateway: GatewayFixture | undefined;
  let url: string;
  let metricsUrl: string;
  beforeAll(async () => {
    const metricsPort = await freePort();
    gateway = await startGateway({
      NODE_ENV: 'production',
      METRICS_PORT: String(metricsPort),
      // Every connection_init reads the key: the window in which a socket can close mid-lookup.
      API_KEY_CACHE_TTL_MS: '0',
      SUBSCRIPTION_CONNECTIONS_PER_KEY: '3',
      CORS_ORIGINS: 'https://app.example',
      // Item 2 tests the byte bound: an unanswered keep-alive ping would also cut a non-reading client.
      SUBSCRIPTION_KEEPALIVE_MS: '0',
    });
    url = gateway.server.url;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  it('item 2: closes a client that sends pings and never reads, with RSS and log lines bounded', async () => {
    const pid = gateway!.server.child.pid!;
    const rssBefore = rssMiB(pid);
    const linesBefore = gateway!.server.output.length;
    const ws = await rawGraphqlWs(url);
    // Never read again: the server's answers (pongs) pile up unless it bounds them.
    (ws as unknown as { _socket: net.Socket })._socket.pause();
    let closed = false;
    ws.on('error', () => undefined);
    ws.once('close', () => (closed = true));
    let peakRss = rssBefore;
    // Pings written straight to the TCP socket, as fast as it takes them.
    const socket = (ws as unknown as { _socket: net.Socket })._socket;
    const burst = Buffer.concat(Array.from({ length: 20_000 }, () => PING_FRAME));
    let pings = 0;
    // Until the server closes the connection; or, without a bound, until its RSS has grown past the
    // bound (the build before the fix grew past 2 GiB in 15 s), or 90 s (a loaded machine is slow to
    // fill the kernel's buffers, several MiB on loopback, before the server's own fills). The bound:
    // 200 MiB on Node 20 (+105 MiB seen at 1.2 M pings); Node 22 and later let the garbage of parsing
    // pings pile up further before collecting it (+500 MiB seen on Node 24, given back after the
    // close), so 1 GiB there.
    const bound = Number(process.versions.node.split('.')[0]) >= 22 ? 1024 : 200;
    const end = Date.now() + 90_000;
    while (!closed && !socket.destroyed && Date.now() < end && peakRss - rssBefore < bound) {
      pings += 20_000;
      if (!socket.write(burst)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            socket.off('drain', done);
            resolve();
          };
          const timer = setTimeout(done, 500);
          socket.once('drain', done);
        });
      }
      await new Promise((r) => setImmediate(r));
      peakRss = Math.max(peakRss, rssMiB(pid));
    }
    closed ||= socket.destroyed;
    ws.terminate();
    const lines = gateway!.server.output.length - linesBefore;
    console.info(
      `websocket-abuse item 2: ${pings} pings, closed=${closed}, RSS ${rssBefore.toFixed(0)} -> peak ${peakRss.toFixed(0)} MiB, ${lines} log lines`,
    );
    expect(closed).toBe(true);
    expect(peakRss - rssBefore).toBeLessThan(bound);
    expect(lines).toBeLessThan(50);
    const closeLine = gateway!.server.output.slice(linesBefore).find((l) => l.includes('not reading'));
    expect(closeLine).toBeDefined();
  }, 150_000);

  it('closes with 1009 a message over SUBSCRIPTION_MESSAGE_MAX_BYTES (64 KiB), which an open subscription would hold', async () => {
    const subscribeOf = (padding: number) =>
      JSON.stringify({
        id: 'big',
        type: 'subscribe',
        payload: { query: 'subscription { stockChanged { petId } }', variables: { junk: 'x'.repeat(padding) } },
      });
    // Under the bound: subscribed, the socket stays open.
    const fits = await rawGraphqlWs(url);
    fits.send(subscribeOf(60 * 1024));
    const stillOpen = await Promise.race([
      new Promise<boolean>((resolve) => fits.once('close', () => resolve(false))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 500)),
    ]);
    expect(stillOpen).toBe(true);
    fits.close();
    // Over it (a 1 MiB HTTP body is still allowed): closed with 1009 before the message is held.
    const over = await rawGraphqlWs(url);
    const closed = new Promise<number>((resolve) => over.once('close', (code) => resolve(code)));
    over.send(subscribeOf(70 * 1024));
    expect(await closed).toBe(1009);
  });

  it('item 4: /metrics and log lines stay small whatever operation names clients send', async () => {
    const linesBefore = gateway!.server.output.length;
    for (let i = 0; i < 100; i++) {
      const name = `Q${i}`.padEnd(100_000, 'x');
      const { status } = await post(url, { query: `query ${name} { __typename }` });
      expect(status).toBe(200);
    }
    const metrics = await (await fetch(metricsUrl)).text();
    const longestLine = Math.max(...gateway!.server.output.slice(linesBefore).map((l) => l.length));
    console.info(`websocket-abuse item 4: /metrics ${metrics.length} bytes, longest log line ${longestLine}`);
    expect(metrics.length).toBeLessThan(1_000_000);
    expect(metrics).toContain('operation_name="__oversized"');
    expect(longestLine).toBeLessThan(2_000);
  });

  it('item 5: deep variables answer 400 VALIDATION_FAILED, in a query, a batch, a mutation input and over WebSocket', async () => {
    const deep = nested(8_000);
    const single = await post(url, `{"query":"{ __typename }","variables":{"zz":${deep}}}`);
    expect(single.status).toBe(400);
    expect(single.body.errors[0].extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    expect(single.body.errors[0].message).toMatch(/Variable \$zz\.a(\.a)+ nests .* deeper than 32 levels/);

    const batch = await post(url, `[{"query":"{ __typename }"},{"query":"{ __typename }","variables":{"zz":${deep}}}]`);
    expect(batch.status).toBe(200);
    expect(batch.body[0].data).toEqual({ __typename: 'Query' });
    expect(batch.body[1].errors[0].extensions.code).toBe('VALIDATION_FAILED');

    const mutation = await post(
      url,
      `{"query":"mutation($i: NewPet!) { createPet(input: $i) { id } }",` +
        `"variables":{"i":{"name":"Rex","categoryId":"1","extra":${deep}}}}`,
      gateway!.admin,
    );
    expect(mutation.status).toBe(400);
    expect(mutation.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

    const c = connectWs(url);
    const sub = subscribe(c, 'subscription($p: [ID!]) { stockChanged(petIds: $p) { quantity } }', {
      p: ['1'],
      // The client library stringifies recursively: 200 levels is deep enough to be refused.
      zz: JSON.parse(nested(200)),
    });
    const error = (await sub.error) as { extensions?: { code?: string } }[];
    expect(error[0]!.extensions!.code).toBe('VALIDATION_FAILED');
    await c.dispose();
  });

  it('item 6: a key whose connections closed during its lookup can still open its full quota', async () => {
    for (let i = 0; i < 20; i++) {
      const ws = new WebSocket(url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws');
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ type: 'connection_init', payload: gateway!.admin }));
      // Gone while the server looks the key up.
      ws.terminate();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const clients = [0, 1, 2].map(() => connectWs(url, { connectionParams: gateway!.admin }));
    const outcomes = await Promise.all(
      clients.map((c) => Promise.race([c.connected.then(() => 'connected'), c.closed.then((e) => `closed ${e.code}`)])),
    );
    expect(outcomes).toEqual(['connected', 'connected', 'connected']);
    await Promise.all(clients.map((c) => c.dispose()));
  });

  it('item 7: WebSocket validation errors give no "Did you mean" in production, as HTTP', async () => {
    const typo = '{ pett(id: 1) { id } }';
    const http = await post(url, { query: typo });
    const c = connectWs(url);
    const error = (await subscribe(c, typo).error) as { message: string; extensions?: { code?: string } }[];
    await c.dispose();
    expect(http.body.errors[0].message).not.toMatch(/Did you mean/);
    expect(error[0]!.message).not.toMatch(/Did you mean/);
    expect(error[0]!.message).toBe(http.body.errors[0].message);
    expect(error[0]!.extensions!.code).toBe(http.body.errors[0].extensions.code);
    // Nor for a variable's value refused (a misspelt enum value: the hint would name the real one).
    const subscription =
      'subscription ($f: PetFilter) { stockChanged { pet { category { pets(filter: $f) { totalCount } } } } }';
    const c2 = connectWs(url);
    type Refused = { message: string; extensions?: Record<string, unknown> }[];
    // Refused when the subscription starts executing: a `next` with the errors, then `complete`.
    const started = subscribe(c2, subscription, { f: { status: 'AVAILABL' } });
    const refused = await Promise.race([
      started.error.then((e) => e as Refused),
      started.take(1).then(([r]) => r!.errors as unknown as Refused),
    ]);
    await c2.dispose();
    expect(refused[0]!.message).toMatch(/^Variable "\$f" got invalid value/);
    expect(refused[0]!.message).not.toMatch(/Did you mean|"AVAILABLE"/);
    // A client's mistake, as over HTTP: it was masked as INTERNAL (and logged as an error).
    expect(refused[0]!.extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
  });

  it('item 8: HTTP status and the error body status agree on every route and method (CORS on)', async () => {
    const disagree = await statusDisagreements(url);
    expect(disagree).toEqual([]);
  });

  it('item 9: in production a browser Origin must be listed; Origin = Host is not enough', async () => {
    const host = new URL(url).host;
    const rebound = upgradeRequest('evil.example', { Origin: 'http://evil.example' });
    expect(await sendAndHangUp(url, rebound)).toBe(403);
    const listed = upgradeRequest(host, { Origin: 'https://app.example' });
    expect(await sendAndHangUp(url, listed)).toBe(101);
    const noBrowser = upgradeRequest(host);
    expect(await sendAndHangUp(url, noBrowser)).toBe(101);
  });
});

describe('WebSocket messages and the rate limit (RATE_LIMIT_MAX=100 a minute)', () => {
  let gateway: GatewayFixture | undefined;
  let url: string;
  beforeAll(async () => {
    gateway = await startGateway({ NODE_ENV: 'production', RATE_LIMIT_MAX: '100' });
    url = gateway.server.url;
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  it('item 8: HTTP status and the error body status agree on every route and method (CORS off)', async () => {
    expect(await statusDisagreements(url)).toEqual([]);
  });

  it('item 3: a connection flooding messages is closed with 1008 at the budget; a client with a key is still served', async () => {
    // The key is verified once before the flood (a key never seen is counted by address until then).
    expect((await post(url, { query: '{ __typename }' }, gateway!.admin)).status).toBe(200);
    const ws = await rawGraphqlWs(url);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    ws.on('error', () => undefined);
    let sent = 0;
    const subscribeThenComplete = (i: number) => {
      ws.send(
        JSON.stringify({
          id: String(i),
          type: 'subscribe',
          payload: { query: 'subscription { stockChanged { quantity } }' },
        }),
      );
      ws.send(JSON.stringify({ id: String(i), type: 'complete' }));
    };
    for (let i = 0; i < 1_000 && ws.readyState === WebSocket.OPEN; i++, sent += 2) {
      subscribeThenComplete(i);
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    // At most 10 s; the timer is cleared, so that it does not hold the worker open after the suite.
    let timer: NodeJS.Timeout | undefined;
    const close = await Promise.race([closed, new Promise<null>((r) => (timer = setTimeout(() => r(null), 10_000)))]);
    clearTimeout(timer);
    ws.terminate();
    console.info(`websocket-abuse item 3: ${sent} messages sent, closed with ${close?.code} (${close?.reason})`);
    expect(close).not.toBeNull();
    expect(close!.code).toBe(1008);
    expect(close!.reason).toMatch(/^Rate limit of 100 requests exceeded; retry in \d+ seconds$/);
    // The address has spent its budget over WebSocket: its HTTP requests are refused too.
    expect((await post(url, { query: '{ __typename }' })).status).toBe(429);
    // A caller with a key has a budget of its own.
    const keyed = await post(url, { query: '{ __typename }' }, gateway!.admin);
    expect(keyed.status).toBe(200);
  });
});

describe('a flood after its rate-limit close (issue 28, item 6; RATE_LIMIT_MAX=20)', () => {
  let gateway: GatewayFixture | undefined;
  beforeAll(async () => {
    gateway = await startGateway({ NODE_ENV: 'production', RATE_LIMIT_MAX: '20', SUBSCRIPTION_KEEPALIVE_MS: '0' });
  });
  afterAll(async () => {
    await gateway?.dispose();
  });

  it('cuts the socket of a client that never reads and goes on writing after the 1008 close', async () => {
    const ws = await rawGraphqlWs(gateway!.server.url);
    ws.on('error', () => undefined);
    // Never read again (not even the close frame); write pings as fast as the socket takes them.
    const socket = (ws as unknown as { _socket: net.Socket })._socket;
    socket.pause();
    socket.on('error', () => undefined);
    const burst = Buffer.concat(Array.from({ length: 5_000 }, () => PING_FRAME));
    const start = Date.now();
    // The budget of 20 is gone after 19 pings: the server closes with 1008 at once, then, before the
    // fix, went on reading and parsing the flood until `ws`'s 30 s close timeout.
    while (!socket.destroyed && Date.now() - start < 20_000) {
      if (!socket.write(burst)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            socket.off('drain', done);
            resolve();
          };
          const timer = setTimeout(done, 200);
          socket.once('drain', done);
        });
      }
      await new Promise((r) => setImmediate(r));
    }
    const cutAfterMs = Date.now() - start;
    ws.terminate();
    console.info(`websocket-abuse issue 28 item 6: socket cut after ${cutAfterMs} ms of flooding`);
    expect(socket.destroyed).toBe(true);
    expect(cutAfterMs).toBeLessThan(10_000);
    // The server serves others meanwhile, and afterwards.
    expect((await post(gateway!.server.url, { query: '{ __typename }' }, gateway!.admin)).status).toBe(200);
  });
});
