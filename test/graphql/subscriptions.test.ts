/**
 * GraphQL subscriptions over graphql-ws, against a server listening on a real port, with the real
 * `graphql-ws` client: events as the database commits them, auth at connection_init and per
 * subscription, revocation, limits, shutdown. (Two processes on one PostgreSQL database:
 * test/http/subscription-processes.test.ts.)
 */
import WebSocket from 'ws';
import { createApiKey, createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { connectWs, subscribe, until, type TestWsClient } from '../helpers/ws-client';
import { StoreEventHub } from '../../src/modules/events/store-events';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;

const STOCK = `subscription($petIds: [ID!]) { stockChanged(petIds: $petIds) { petId quantity status pet { id name } } }`;
// The order is as the change committed; its relations (pet) are read when the event is delivered.
const ORDERS = `subscription($petIds: [ID!]) { orderEvents(petIds: $petIds) { kind order { id petId quantity complete pet { id } } } }`;

let t: TestApp;
let url: string;
const open: TestWsClient[] = [];

function ws(options: Parameters<typeof connectWs>[1] = {}): TestWsClient {
  const c = connectWs(url, options);
  open.push(c);
  return c;
}

const bearer = (headers: Record<string, string>) => ({ Authorization: headers.authorization });

/** Waits until this process has `n` open subscriptions (a subscription is live once counted). */
const subscribed = (n: number) => until(() => t.app.subscriptions.subscriptionCount >= n);

async function newPet(stock: number): Promise<string> {
  const { createCategory } = await t.gqlOk(
    doc(`mutation($n: String!) { createCategory(input: { name: $n }) { id } }`),
    {
      n: `subs ${Math.random()}`,
    },
  );
  const { createPet } = await t.gqlOk(
    doc(`mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }`),
    {
      c: createCategory.id,
    },
  );
  await setStock(createPet.id, stock);
  return createPet.id as string;
}

const setStock = (petId: string, quantity: number) =>
  t.gqlOk(doc(`mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }`), {
    p: petId,
    q: quantity,
  });
const place = (petId: string, quantity: number) =>
  t.gql(doc(`mutation($p: ID!, $q: Int!) { placeOrder(input: { petId: $p, quantity: $q }) { id } }`), {
    p: petId,
    q: quantity,
  });

beforeAll(async () => {
  t = await createTestApp({
    auth: 'admin',
    env: {
      SUBSCRIPTIONS_PER_CONNECTION: '3',
      SUBSCRIPTION_CONNECTIONS_PER_ADDRESS: '20',
      CORS_ORIGINS: 'https://app.example.com',
    },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  url = `http://127.0.0.1:${port}`;
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
  await until(() => t.app.subscriptions.connectionCount === 0);
});

afterAll(async () => {
  await t?.close();
});

describe('events', () => {
  it('delivers a stock update with the pet it belongs to', async () => {
    const petId = await newPet(3);
    const c = ws();
    const stock = subscribe(c, STOCK, { petIds: [petId] });
    await subscribed(1);
    await setStock(petId, 7);
    const [event] = await stock.take(1);
    expect(event).toEqual({
      data: { stockChanged: { petId, quantity: 7, status: 'AVAILABLE', pet: { id: petId, name: 'Rex' } } },
    });
  });

  it('delivers a placement, a completion and a cancellation with the order as it was, and the stock each left', async () => {
    const petId = await newPet(2);
    const c = ws({ connectionParams: bearer(await createApiKey(t, ['orders:read'])) });
    const orders = subscribe(c, ORDERS, { petIds: [petId] });
    const stock = subscribe(c, STOCK, { petIds: [petId] });
    await subscribed(2);

    const first = (await place(petId, 1)).data!.placeOrder.id as string;
    await t.gqlOk(doc(`mutation($id: ID!) { completeOrder(id: $id) { id } }`), { id: first });
    const second = (await place(petId, 1)).data!.placeOrder.id as string;
    await t.gqlOk(doc(`mutation($id: ID!) { cancelOrder(id: $id) { id } }`), { id: second });

    const events = (await orders.take(4)).map((r) => r.data!.orderEvents);
    expect(events).toEqual([
      { kind: 'PLACED', order: { id: first, petId, quantity: 1, complete: false, pet: { id: petId } } },
      { kind: 'COMPLETED', order: { id: first, petId, quantity: 1, complete: true, pet: { id: petId } } },
      { kind: 'PLACED', order: { id: second, petId, quantity: 1, complete: false, pet: { id: petId } } },
      { kind: 'CANCELLED', order: { id: second, petId, quantity: 1, complete: false, pet: { id: petId } } },
    ]);
    // Taking the last unit makes the pet pending in the same transaction: one event, its final state.
    const levels = (await stock.take(3)).map((r) => r.data!.stockChanged);
    expect(levels.map((s) => [s.quantity, s.status])).toEqual([
      [1, 'AVAILABLE'],
      [0, 'PENDING'],
      [1, 'AVAILABLE'],
    ]);
  });

  it('publishes nothing for an OUT_OF_STOCK placement or a transaction that rolls back', async () => {
    const petId = await newPet(1);
    const marker = await newPet(0);
    const c = ws({ connectionParams: bearer(t.admin) });
    const orders = subscribe(c, ORDERS);
    const stock = subscribe(c, STOCK);
    await subscribed(2);

    expect((await place(petId, 5)).errors?.[0]?.extensions.code).toBe('OUT_OF_STOCK');
    await expect(
      t.db.prisma.$transaction(async (tx) => {
        await tx.inventoryItem.update({ where: { petId: BigInt(petId) }, data: { quantity: 50 } });
        await tx.order.create({ data: { petId: BigInt(petId), quantity: 1 } });
        throw new Error('made to fail');
      }),
    ).rejects.toThrow('made to fail');
    // Events arrive in commit order: the marker's is the first either stream hears.
    await setStock(marker, 9);
    const [first] = await stock.take(1);
    expect(first!.data!.stockChanged).toMatchObject({ petId: marker, quantity: 9 });
    expect(orders.results).toEqual([]);
  });

  it('filters by pet id', async () => {
    const [a, b] = [await newPet(1), await newPet(1)];
    const c = ws();
    const onlyB = subscribe(c, STOCK, { petIds: [b] });
    await subscribed(1);
    await setStock(a, 4);
    await setStock(b, 5);
    // On PostgreSQL, b's own setup (its stock set to 1, committed before the subscription) may reach
    // this process's LISTEN after the subscription started, and is then delivered: read up to the
    // update made here. Whatever arrives is b's, never a's.
    const quantity = (e: (typeof onlyB.results)[number]) =>
      (e.data as { stockChanged: { quantity: number } }).stockChanged.quantity;
    await until(() => onlyB.results.some((e) => quantity(e) === 5));
    for (const event of onlyB.results) expect(event.data!.stockChanged).toMatchObject({ petId: b });
    expect(onlyB.results.map(quantity)).toEqual(expect.arrayContaining([5]));
    expect(onlyB.results.map(quantity).every((q) => q === 1 || q === 5)).toBe(true);
  });

  it('delivers nothing for an empty list of pet ids (every pet only when petIds is absent)', async () => {
    const petId = await newPet(1);
    const c = ws();
    const none = subscribe(c, STOCK, { petIds: [] });
    const all = subscribe(c, STOCK, {});
    await subscribed(2);
    await setStock(petId, 6);
    await until(() => all.results.some((e) => e.data?.stockChanged.petId === petId));
    expect(none.results).toEqual([]);
  });
});

describe('auth', () => {
  it('refuses order events without a key (UNAUTHENTICATED) and with a key lacking orders:read (FORBIDDEN)', async () => {
    const anonymous = subscribe(ws(), ORDERS);
    expect(await anonymous.error).toEqual([
      expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', status: 401 } }),
    ]);
    const catalog = subscribe(ws({ connectionParams: bearer(await createApiKey(t, ['catalog:write'])) }), ORDERS);
    expect(await catalog.error).toEqual([expect.objectContaining({ extensions: { code: 'FORBIDDEN', status: 403 } })]);
  });

  it('checks the whole document: a public subscription selecting a protected field needs its scope', async () => {
    const nested = subscribe(ws(), `subscription { stockChanged { pet { orders { totalCount } } } }`);
    expect(await nested.error).toEqual([
      expect.objectContaining({ extensions: { code: 'UNAUTHENTICATED', status: 401 } }),
    ]);
  });

  it('closes the connection with 4401 for an unknown key, a malformed credential, and a revoked key', async () => {
    expect(await ws({ connectionParams: { Authorization: 'Bearer pk_notakey' } }).closed).toMatchObject({ code: 4401 });
    expect(await ws({ connectionParams: { Authorization: 'Basic abc' } }).closed).toMatchObject({ code: 4401 });
    const key = await createApiKey(t, ['orders:read']);
    const [info] = (await t.services.apiKeys.list()).slice(-1);
    await t.services.apiKeys.revoke(info!.id);
    expect(await ws({ connectionParams: bearer(key) }).closed).toMatchObject({
      code: 4401,
      reason: expect.stringContaining('unknown or revoked'),
    });
  });

  it('closes with 1013 (try again later) when the database cannot check the key, as HTTP answers 503', async () => {
    // A key this process has not seen yet: connection_init reads it, and records its use. The
    // database refuses that write as a read-only server does (SQLSTATE 25006, a failover).
    const key = await createApiKey(t, ['orders:read']);
    await t.db.prisma.$executeRawUnsafe(`CREATE FUNCTION read_only_keys() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'read-only' USING ERRCODE = '25006'; END $$`);
    await t.db.prisma.$executeRawUnsafe(
      'CREATE TRIGGER read_only_keys BEFORE UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION read_only_keys()',
    );
    try {
      const http = await t.gql(doc('{ me { subject } }'), {}, key);
      expect(http.status).toBe(503);
      expect(http.errors?.[0]?.extensions.code).toBe('UNAVAILABLE');
      expect(await ws({ connectionParams: bearer(key) }).closed).toMatchObject({ code: 1013 });
    } finally {
      await t.db.prisma.$executeRawUnsafe('DROP TRIGGER read_only_keys ON api_keys');
      await t.db.prisma.$executeRawUnsafe('DROP FUNCTION read_only_keys()');
    }
    // Once the database takes the write again, the same key connects.
    const c = ws({ connectionParams: bearer(key) });
    await c.connected;
  });

  it('accepts the key in connectionParams.headers, any case', async () => {
    const c = ws({ connectionParams: { headers: { authorization: t.admin.authorization } } });
    await c.connected;
    const orders = subscribe(c, ORDERS);
    await subscribed(1);
    expect(orders.results).toEqual([]);
  });

  it('closes the open subscriptions of a key when it is revoked', async () => {
    const key = await createApiKey(t, ['orders:read'], 'to revoke');
    const id = (await t.services.apiKeys.list()).find((k) => k.name === 'to revoke')!.id;
    const c = ws({ connectionParams: bearer(key) });
    subscribe(c, ORDERS);
    await subscribed(1);
    await t.services.apiKeys.revoke(id);
    expect(await c.closed).toEqual({ code: 4401, reason: 'Unauthorized: the API key was revoked' });
    await until(() => t.app.subscriptions.subscriptionCount === 0);
  });

  it('closes within API_KEY_CACHE_TTL_MS the connections of a key revoked without the notification', async () => {
    const short = await createTestApp({ auth: 'admin', env: { API_KEY_CACHE_TTL_MS: '500' } });
    try {
      await short.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = short.app.server.address() as { port: number };
      const key = await createApiKey(short, ['orders:read'], 'revoked by hand');
      const id = (await short.services.apiKeys.list()).find((k) => k.name === 'revoked by hand')!.id;
      const c = connectWs(`http://127.0.0.1:${port}`, { connectionParams: bearer(key) });
      try {
        subscribe(c, ORDERS);
        await until(() => short.app.subscriptions.subscriptionCount === 1);
        // By hand, with no notification: the TTL bounds how long a process goes on using the key
        // (docs/keys-scopes-limits.md), an open connection's as much as HTTP's.
        await short.db.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`;
        const open = new Promise((resolve) => setTimeout(() => resolve('still open'), 3000));
        expect(await Promise.race([c.closed, open])).toEqual({
          code: 4401,
          reason: 'Unauthorized: the API key was revoked',
        });
      } finally {
        await c.dispose();
      }
    } finally {
      await short.close();
    }
  });

  it('closes with 1013 (try again later) the connections of a changed key that cannot be read again', async () => {
    const key = await createApiKey(t, ['orders:read'], 'unreadable when revoked');
    const id = (await t.services.apiKeys.list()).find((k) => k.name === 'unreadable when revoked')!.id;
    const c = ws({ connectionParams: bearer(key) });
    subscribe(c, ORDERS);
    await subscribed(1);
    // The revocation commits with the keys' table out of reach: its notification arrives, the key
    // cannot be read again. Kept open, the connection would go on with a revoked key.
    await t.db.prisma.$transaction([
      t.db.prisma.$executeRaw`UPDATE api_keys SET revoked_at = now() WHERE id = ${id}`,
      t.db.prisma.$executeRaw`SELECT pg_notify('api_key_changed', ${String(id)})`,
      t.db.prisma.$executeRawUnsafe('ALTER TABLE api_keys RENAME TO api_keys_away'),
    ]);
    try {
      const open = new Promise((resolve) => setTimeout(() => resolve('still open'), 3000));
      expect(await Promise.race([c.closed, open])).toMatchObject({ code: 1013 });
    } finally {
      await t.db.prisma.$executeRawUnsafe('ALTER TABLE api_keys_away RENAME TO api_keys');
    }
  });

  it('refuses at connection_init a key of the upgrade request that was revoked since', async () => {
    const key = await createApiKey(t, ['orders:read'], 'revoked before init');
    const id = (await t.services.apiKeys.list()).find((k) => k.name === 'revoked before init')!.id;
    // The upgrade request carries the key (valid then); connection_init comes later, as a client may
    // send it up to 3 s after the socket opened.
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: key });
    try {
      // The first answer to connection_init: an acknowledgement, or the close.
      const answer = new Promise((resolve) => {
        socket.once('message', (m: Buffer) => resolve(JSON.parse(m.toString())));
        socket.once('close', (code, reason) => resolve({ code, reason: `${reason}` }));
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      await t.services.apiKeys.revoke(id);
      // The process has heard of it: HTTP refuses the key.
      await until(async () => (await t.gql(doc('{ me { subject } }'), {}, key)).status === 401);
      socket.send(JSON.stringify({ type: 'connection_init' }));
      expect(await answer).toEqual({ code: 4401, reason: 'Unauthorized: the API key is unknown or revoked' });
    } finally {
      socket.terminate();
    }
  });
});

describe('limits', () => {
  /** A raw graphql-ws connection that sends `messages` once acknowledged: how the server closes it. */
  const closeAfterAck = (...messages: string[]) => {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type !== 'connection_ack') return;
      for (const message of messages) socket.send(message);
    });
    return closed;
  };

  it('refuses a subscription over the per-connection maximum', async () => {
    const c = ws();
    for (let i = 0; i < 3; i++) subscribe(c, STOCK);
    await subscribed(3);
    const fourth = subscribe(c, STOCK);
    expect(await fourth.error).toEqual([
      expect.objectContaining({ extensions: { code: 'RATE_LIMITED', status: 429 } }),
    ]);
  });

  it('closes with 4409 a subscription id sent twice, however long the id the close reason quotes', async () => {
    // graphql-ws's reason quotes the id ("Subscriber for <id> already exists"): past a close frame's
    // 123 bytes `ws` threw, and the connection closed 4500 "Internal server error".
    const message = JSON.stringify({ id: 'é'.repeat(100), type: 'subscribe', payload: { query: STOCK } });
    const { code, reason } = await closeAfterAck(message, message);
    expect(code).toBe(4409);
    expect(reason).toMatch(/^Subscriber for é+/);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
  });

  it.each([
    { type: 'connection_ack' },
    { id: '1', type: 'next', payload: { data: {} } },
    { id: '1', type: 'error', payload: [{ message: 'x' }] },
  ])(
    'closes with 4400 (an invalid message) a $type sent by a client, a message only a server sends',
    async (message) => {
      // graphql-ws's server throws on them: the connection closed 4500 "Internal server error", and
      // the server logged an error with its stack, as often as any client cared to send one.
      expect(await closeAfterAck(JSON.stringify(message))).toEqual({ code: 4400, reason: 'Invalid message received' });
    },
  );

  it('closes with 4400 (an invalid message) a ping whose payload nests too deep to be echoed', async () => {
    // Its pong echoes the payload: JSON.stringify overflowed the stack, and the connection closed
    // 4500 "Internal server error", logged with its stack, for 40 KB from any client.
    const deepPing = `{"type":"ping","payload":{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    expect(await closeAfterAck(deepPing)).toEqual({ code: 4400, reason: 'Invalid message received' });
  });

  it('applies the depth, alias and token limits of queries', async () => {
    const c = ws();
    const deep = subscribe(
      c,
      `subscription { stockChanged { pet { category { pets { nodes { category { pets { nodes { category { pets { nodes { id } } } } } } } } } } } }`,
    );
    expect(await deep.error).toEqual([
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } }),
    ]);
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: petId`).join(' ');
    const aliased = subscribe(c, `subscription { stockChanged { ${aliases} } }`);
    expect(await aliased.error).toEqual([
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } }),
    ]);
    const huge = subscribe(c, `subscription { stockChanged { ${'petId '.repeat(2000)} } }`);
    expect(await huge.error).toEqual([
      expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', status: 400 } }),
    ]);
  });

  it('serves only subscriptions over WebSocket, and validates them', async () => {
    const c = ws();
    const query = subscribe(c, `query { inventorySummary { quantity } }`);
    expect(await query.error).toEqual([expect.objectContaining({ extensions: { code: 'BAD_REQUEST', status: 400 } })]);
    const invalid = subscribe(c, `subscription { stockChanged { nope } }`);
    expect(await invalid.error).toEqual([
      expect.objectContaining({ extensions: { code: 'VALIDATION_FAILED', status: 400 } }),
    ]);
    // Variables are coerced before the subscription starts, as over HTTP before executing: refused
    // with the scalar's own message (its result used to carry it, or INTERNAL for an input's field).
    const badId = subscribe(c, STOCK, { petIds: ['x'] });
    expect(await badId.error).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/ID/),
        extensions: { code: 'VALIDATION_FAILED', status: 400 },
      }),
    ]);
    const overHttp = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query ($id: ID!) { pet(id: $id) { id } }', variables: { id: 'x' } }),
    });
    expect(((await badId.error) as { message: string }[])[0]!.message).toBe(
      ((await overHttp.json()) as { errors: { message: string }[] }).errors[0]!.message,
    );
    const badFilter = subscribe(
      c,
      'subscription ($f: PetFilter) { stockChanged { pet { category { pets(filter: $f) { totalCount } } } } }',
      { f: { status: 'NOPE' } },
    );
    expect(await badFilter.error).toEqual([
      expect.objectContaining({ extensions: { code: 'VALIDATION_FAILED', status: 400 } }),
    ]);
  });

  it('refuses a browser from an origin that is neither this one nor in CORS_ORIGINS (403), and accepts those', async () => {
    const status = (origin: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws', {
          headers: { origin },
        });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
      });
    expect(await status('https://evil.example.com')).toBe(403);
    expect(await status('https://app.example.com')).toBe(101);
    expect(await status(url)).toBe(101);
  });

  it('refuses connections over the per-address maximum with 429', async () => {
    const clients = Array.from({ length: 20 }, () => ws());
    await Promise.all(clients.map((c) => c.connected));
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.on('open', () => resolve(101));
    });
    expect(refused).toBe(429);
  });

  it('a subscriber that stops reading is cut off at the buffer bound, not buffered without end', async () => {
    const hub = new StoreEventHub();
    let overflowed = 0;
    const stream = hub.subscribe((e) => e, { maxBuffered: 2, onOverflow: () => overflowed++ });
    for (let i = 0; i < 5; i++) hub.publish({ type: 'stock', petId: BigInt(i), quantity: i, status: 'available' });
    expect(overflowed).toBe(1);
    expect(hub.size).toBe(0);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });
});

describe('shutdown', () => {
  it('closes connections with 1001 and sends no complete: the subscriptions are not over for the client', async () => {
    const own = await createTestApp({ auth: 'admin' });
    await own.app.listen({ host: '127.0.0.1', port: 0 });
    const c = connectWs(`http://127.0.0.1:${(own.app.server.address() as { port: number }).port}`);
    const stock = subscribe(c, STOCK);
    let completed = false;
    void stock.completed.then(() => (completed = true));
    await until(() => own.app.subscriptions.subscriptionCount === 1);
    await own.close();
    expect(await c.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    await new Promise((r) => setImmediate(r));
    // A complete ends a graphql-ws client's subscription for good: it would not subscribe again
    // when it reconnects (test/http/subscription-processes.test.ts: it does, to another process).
    expect(completed).toBe(false);
    await c.dispose();
  });
});

describe('over HTTP', () => {
  it('refuses a subscription sent as a POST with a clear 400, pointing at WebSocket', async () => {
    const reply = await t.gql(doc(STOCK), {});
    expect(reply.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_REQUEST', status: 400 }) }),
    ]);
    expect(reply.errors![0]!.message).toMatch(/WebSocket/);
  });
});
