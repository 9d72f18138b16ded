/**
 * Objects that no root query field read (a mutation's payload, a subscription's event) have their
 * relations read by the same compiler as queries, in ONE statement whatever they select (issue 29):
 * a mutation costs its write plus one statement, an event one statement. Statements are counted
 * where the process sends them (Prisma's and the SQL reader's, test-database.ts), so a relation read
 * any other way (a loader per relation, a count beside a page) shows up as one more.
 */
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { insertOrder, makeCategory, makePet } from '../helpers/factories';
import { connectWs, subscribe, until } from '../helpers/ws-client';
import { driverStatements } from '../helpers/driver-statements';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;

const PLACE_ID = doc(`mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id } }`);
const PLACE_DEEP = doc(`mutation($p: ID!) {
  placeOrder(input: { petId: $p, quantity: 1 }) {
    id
    pet { name category { name } inventory { quantity status } orders(first: 5) { totalCount nodes { id } } }
  }
}`);
const CREATE_ID = doc(`mutation($c: ID!) { createPet(input: { name: "Counted", categoryId: $c }) { id } }`);
const CREATE_DEEP = doc(`mutation($c: ID!) {
  createPet(input: { name: "Counted", categoryId: $c }) {
    id
    category { name pets(first: 3) { totalCount nodes { id } } }
  }
}`);
const ORDER_EVENTS = `subscription($petIds: [ID!]) {
  orderEvents(petIds: $petIds) { kind order { id pet { name category { name } inventory { quantity } } } }
}`;

/** Statements sent, the API key's bookkeeping (a write at most once a minute) left out. */
const counted = (t: TestApp) =>
  t.sql.statements.filter((s) => !s.includes('"api_keys"') && !/^\s*(BEGIN|COMMIT|ROLLBACK)\b/i.test(s));

describe('statements of objects read after a write', () => {
  let t: TestApp;
  let categoryId: bigint;
  let petId: bigint;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    categoryId = (await makeCategory(t)).id;
    for (let i = 0; i < 4; i++) await makePet(t, { categoryId, stock: 3 });
    petId = (await makePet(t, { categoryId, stock: 50 })).id;
    for (let i = 0; i < 3; i++) await insertOrder(t, { petId });
    await t.gqlOk(PLACE_ID, { p: petId.toString() }); // the API key is cached from here on
  });
  afterAll(() => t.close());

  async function statementsOf(document: TypedDocument<any, any>, variables: Record<string, unknown>) {
    t.sql.reset();
    const data = await t.gqlOk(document, variables);
    return { data, statements: counted(t) };
  }

  it('places an order selecting its pet, category, stock and orders in its write plus one statement', async () => {
    const write = await statementsOf(PLACE_ID, { p: petId.toString() });
    const deep = await statementsOf(PLACE_DEEP, { p: petId.toString() });
    expect(deep.data.placeOrder.pet).toMatchObject({
      category: { name: expect.any(String) },
      inventory: { quantity: 47, status: 'AVAILABLE' },
      orders: { totalCount: 6 },
    });
    expect(deep.data.placeOrder.pet.orders.nodes).toHaveLength(5);
    expect(deep.data.placeOrder.pet.orders.nodes[0].id).toBe(deep.data.placeOrder.id);
    expect(deep.statements).toHaveLength(write.statements.length + 1);
  });

  it("creates a pet selecting its category's pets and their count in its write plus one statement", async () => {
    const write = await statementsOf(CREATE_ID, { c: categoryId.toString() });
    const deep = await statementsOf(CREATE_DEEP, { c: categoryId.toString() });
    expect(deep.data.createPet.category.pets.totalCount).toBe(7);
    expect(deep.data.createPet.category.pets.nodes).toHaveLength(3);
    expect(deep.statements).toHaveLength(write.statements.length + 1);
  });

  it("reads a payload's relation of its key alone from the database: a row at hand's key was read before", async () => {
    // Queries answer `pet { id }` from the order's own pet id (read-compiler.md); the relations of a
    // row at hand are still joined, so the pet is the one that exists when they are read.
    const write = await statementsOf(PLACE_ID, { p: petId.toString() });
    const keyOnly = await statementsOf(
      doc(`mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id pet { id } } }`),
      { p: petId.toString() },
    );
    expect(keyOnly.data.placeOrder.pet).toEqual({ id: petId.toString() });
    expect(keyOnly.statements).toHaveLength(write.statements.length + 1);
    expect(keyOnly.statements.at(-1)).toMatch(/\bpets\b/);
    const created = await statementsOf(
      doc(`mutation($c: ID!) { createPet(input: { name: "Keyed", categoryId: $c }) { id category { id } } }`),
      { c: categoryId.toString() },
    );
    expect(created.data.createPet.category).toEqual({ id: categoryId.toString() });
    expect(created.statements.at(-1)).toMatch(/\bcategories\b/);
  });

  it('answers a payload that selects no relation from its write alone', async () => {
    const write = await statementsOf(PLACE_ID, { p: petId.toString() });
    expect(write.statements).toHaveLength(1);
  });
});

describe('statements of subscription events', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  it("reads an order event's pet, category and stock in one statement per event", async () => {
    const categoryId = (await makeCategory(t)).id;
    const petId = (await makePet(t, { categoryId, stock: 10 })).id.toString();
    await t.gqlOk(PLACE_ID, { p: petId });
    const client = connectWs(url, { connectionParams: { Authorization: t.admin.authorization } });
    try {
      const events = subscribe(client, ORDER_EVENTS, { petIds: [petId] });
      await until(() => t.app.subscriptions.subscriptionCount >= 1);
      t.sql.reset();
      for (let i = 0; i < 3; i++) await t.gqlOk(PLACE_ID, { p: petId });
      const delivered = await events.take(3);
      for (const event of delivered) {
        expect(event.data!.orderEvents.order.pet).toEqual({
          name: expect.any(String),
          category: { name: expect.any(String) },
          inventory: { quantity: expect.any(Number) },
        });
      }
      const reads = counted(t).filter((s) => !s.includes('store_place_order'));
      expect(reads).toHaveLength(3);
    } finally {
      await client.dispose();
    }
  });

  it("sends an event's relations once for all the subscribers of one document (src/db/coalesce.ts)", async () => {
    const categoryId = (await makeCategory(t)).id;
    const petId = (await makePet(t, { categoryId, stock: 10 })).id.toString();
    const clients = Array.from({ length: 4 }, () =>
      connectWs(url, { connectionParams: { Authorization: t.admin.authorization } }),
    );
    const driver = driverStatements(t.db);
    try {
      // The previous test's subscription is gone once its client's close has reached the server.
      await until(() => t.app.subscriptions.subscriptionCount === 0);
      const streams = clients.map((client) => subscribe(client, ORDER_EVENTS, { petIds: [petId] }));
      await until(() => t.app.subscriptions.subscriptionCount >= clients.length);
      driver.reset();
      await t.gqlOk(PLACE_ID, { p: petId });
      for (const events of streams) {
        const [event] = await events.take(1);
        expect(event!.data!.orderEvents.order.pet).toEqual({
          name: expect.any(String),
          category: { name: expect.any(String) },
          inventory: { quantity: 9 },
        });
      }
      const eventReads = driver.texts().filter((text) => text.includes('WITH ORDINALITY'));
      expect(eventReads).toHaveLength(1);
    } finally {
      driver.restore();
      await Promise.all(clients.map((client) => client.dispose()));
    }
  });
});
