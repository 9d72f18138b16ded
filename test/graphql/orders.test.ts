import { createTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { insertOrder, makePet, placeOrder } from '../helpers/factories';
import { CancelOrder, CompleteOrder, OrderById, PlaceOrder, ordersOf, stockOf } from './store-operations';

// One database for the suite: every test places, completes and cancels orders of pets of its own.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

describe('placing an order', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin', database });
  });
  afterAll(() => t.close());

  it("takes the quantity out of the pet's stock and opens the order", async () => {
    const pet = await makePet(t, { stock: 5 });
    const { placeOrder } = await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 2 } });
    expect(placeOrder).toEqual({
      id: expect.stringMatching(/^\d+$/),
      petId: pet.id.toString(),
      quantity: 2,
      shipDate: null,
      complete: false,
      pet: { id: pet.id.toString(), status: 'AVAILABLE', inventory: { quantity: 3, status: 'AVAILABLE' } },
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 3 });
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
  });

  it('keeps the ship date it is given', async () => {
    const pet = await makePet(t, { stock: 1 });
    const { placeOrder } = await t.gqlOk(PlaceOrder, {
      input: { petId: pet.id.toString(), quantity: 1, shipDate: '2030-01-02T03:04:05.678Z' },
    });
    expect(placeOrder.shipDate).toBe('2030-01-02T03:04:05.678Z');
  });

  // The embedded database's own timestamptz parser read its text with `new Date(text)`, whose
  // non-ISO form maps years 0-49 to 2000-2049 and 50-99 to 1950-1999: 0001 came back as 2001.
  it.each([['0001-01-01T00:00:00.000Z'], ['0049-06-01T12:00:00.000Z'], ['0099-12-31T23:59:59.999Z']])(
    'keeps the ship date %s, in the first century, as given on every read',
    async (shipDate) => {
      const pet = await makePet(t, { stock: 1 });
      const { placeOrder } = await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1, shipDate } });
      expect(placeOrder.shipDate).toBe(shipDate);
      expect((await t.gqlOk(OrderById, { id: placeOrder.id })).order?.shipDate).toBe(shipDate);
      const rest = await t.app.inject({ url: `/store/orders?petId=${pet.id}`, headers: t.admin });
      expect(rest.json()).toEqual([expect.objectContaining({ id: Number(placeOrder.id), shipDate })]);
    },
  );

  it('makes the pet pending when the order takes the last of its stock', async () => {
    const pet = await makePet(t, { stock: 2 });
    const { placeOrder } = await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 2 } });
    expect(placeOrder.pet).toMatchObject({ status: 'PENDING', inventory: { quantity: 0, status: 'PENDING' } });
  });

  it('accepts the maximum quantity of 100', async () => {
    const pet = await makePet(t, { stock: 150 });
    const { placeOrder } = await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 100 } });
    expect(placeOrder.quantity).toBe(100);
    expect((await stockOf(t, pet.id)).quantity).toBe(50);
  });

  it('rejects an order larger than the stock with OUT_OF_STOCK and changes nothing', async () => {
    const pet = await makePet(t, { stock: 3 });
    const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 4 } });
    expect(reply.errors?.[0]).toMatchObject({
      message: `Pet ${pet.id} has 3 in stock; 4 ordered`,
      extensions: { code: 'OUT_OF_STOCK', status: 409 },
    });
    expect(reply.data).toBeNull();
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 3 });
    expect(await ordersOf(t, pet.id)).toHaveLength(0);
  });

  it('rejects an order for a pet without stock with OUT_OF_STOCK', async () => {
    const pet = await makePet(t);
    const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'OUT_OF_STOCK', status: 409 });
  });

  it.each([['PENDING'], ['SOLD']])('rejects an order for a %s pet with OUT_OF_STOCK', async (status) => {
    const pet = await makePet(t, { stock: 1 });
    await placeOrder(t, pet.id); // now pending
    if (status === 'SOLD') await t.services.orders.complete((await ordersOf(t, pet.id))[0]!.id);
    expect((await stockOf(t, pet.id)).status).toBe(status);
    const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } });
    expect(reply.errors?.[0]).toMatchObject({
      message: `Pet ${pet.id} is ${status.toLowerCase()}: none left to order`,
      extensions: { code: 'OUT_OF_STOCK', status: 409 },
    });
  });

  it('rejects an unknown pet with VALIDATION_FAILED naming petId', async () => {
    const reply = await t.gql(PlaceOrder, { input: { petId: '987654321', quantity: 1 } });
    expect(reply.errors?.[0]).toMatchObject({
      message: 'petId: pet 987654321 does not exist',
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
  });

  it.each([
    ['0', 0, 'quantity: must be at least 1'],
    ['-1', -1, 'quantity: must be at least 1'],
    ['101', 101, 'quantity: must be at most 100'],
  ])('rejects a quantity of %s with VALIDATION_FAILED', async (_label, quantity, message) => {
    const pet = await makePet(t, { stock: 200 });
    const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity } });
    expect(reply.errors?.[0]).toMatchObject({ message, extensions: { code: 'VALIDATION_FAILED', status: 400 } });
    expect((await stockOf(t, pet.id)).quantity).toBe(200);
  });

  it.each([['not-a-date'], ['2030-02-30T00:00:00Z'], ['2030-01-01']])(
    'rejects the ship date %p with VALIDATION_FAILED (400)',
    async (shipDate) => {
      const pet = await makePet(t, { stock: 1 });
      const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1, shipDate } });
      expect(reply.status).toBe(400);
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
      expect((await stockOf(t, pet.id)).quantity).toBe(1);
    },
  );

  // Valid RFC 3339 whose offset puts it at UTC in year 0 or 10000: PostgreSQL refused it, and the
  // client got INTERNAL (500).
  it.each([['0000-01-01T00:00:00Z'], ['0001-01-01T00:00:00+01:00'], ['9999-12-31T23:59:59-23:59']])(
    'rejects the ship date %p, outside the years 0001-9999 at UTC, with VALIDATION_FAILED naming it',
    async (shipDate) => {
      const pet = await makePet(t, { stock: 1 });
      const reply = await t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1, shipDate } });
      expect(reply.errors?.[0]).toMatchObject({
        message: 'shipDate: must be in the years 0001 to 9999 (UTC)',
        extensions: { code: 'VALIDATION_FAILED', status: 400 },
      });
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 1 });
      expect(await ordersOf(t, pet.id)).toHaveLength(0);
    },
  );

  it('stock, place, complete and cancel each send their one statement on the driver, not through Prisma', async () => {
    const raw = jest.spyOn(t.db.prisma, '$queryRaw');
    const writer = jest.spyOn(t.db.writer, 'query');
    try {
      const pet = await makePet(t, { stock: 4 });
      const { placeOrder } = await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } });
      const second = await t.services.orders.place({ petId: pet.id, quantity: 1 }, {});
      await t.gqlOk(CompleteOrder, { id: placeOrder.id });
      await t.gqlOk(CancelOrder, { id: second.id.toString() });
      // The driver's types, as Prisma gave them: the order's id a bigint.
      expect(typeof second.id).toBe('bigint');
      expect(writer.mock.calls.map(([s]) => /store_\w+/.exec(s.text)?.[0])).toEqual([
        'store_set_stock',
        'store_place_order',
        'store_place_order',
        'store_finish_order',
        'store_finish_order',
      ]);
      expect(raw).not.toHaveBeenCalled();
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 3 });
    } finally {
      raw.mockRestore();
      writer.mockRestore();
    }
  });
});

describe('completing an order', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin', database });
  });
  afterAll(() => t.close());

  it('completes an open order and sets its ship date to now when it has none', async () => {
    const pet = await makePet(t, { stock: 3 });
    const order = await placeOrder(t, pet.id);
    const before = Date.now();
    const { completeOrder } = await t.gqlOk(CompleteOrder, { id: order.id.toString() });
    const after = Date.now();
    expect(completeOrder).toMatchObject({ id: order.id.toString(), complete: true, quantity: 1 });
    // The database's clock sets it; allow for the two clocks' rounding.
    const shipped = Date.parse(completeOrder.shipDate!);
    expect(shipped).toBeGreaterThanOrEqual(before - 1000);
    expect(shipped).toBeLessThanOrEqual(after + 1000);
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 2 });
  });

  it('keeps the ship date of an order that has one', async () => {
    const pet = await makePet(t, { stock: 3 });
    const order = await t.services.orders.place(
      {
        petId: pet.id,
        quantity: 1,
        shipDate: new Date('2031-05-06T07:08:09.000Z'),
      },
      {},
    );
    const { completeOrder } = await t.gqlOk(CompleteOrder, { id: order.id.toString() });
    expect(completeOrder.shipDate).toBe('2031-05-06T07:08:09.000Z');
  });

  it('rejects completing an order twice with INVALID_TRANSITION', async () => {
    const pet = await makePet(t, { stock: 3 });
    const order = await placeOrder(t, pet.id);
    await t.gqlOk(CompleteOrder, { id: order.id.toString() });
    const reply = await t.gql(CompleteOrder, { id: order.id.toString() });
    expect(reply.errors?.[0]).toMatchObject({
      message: `Order ${order.id} is already complete`,
      extensions: { code: 'INVALID_TRANSITION', status: 409 },
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 2 });
  });

  it('sells a pending pet once its last open order completes', async () => {
    const pet = await makePet(t, { stock: 3 });
    const first = await placeOrder(t, pet.id, 1);
    const second = await placeOrder(t, pet.id, 2);
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
    await t.gqlOk(CompleteOrder, { id: first.id.toString() });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
    await t.gqlOk(CompleteOrder, { id: second.id.toString() });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'SOLD', quantity: 0 });
  });

  it('answers NOT_FOUND for an order that does not exist', async () => {
    const reply = await t.gql(CompleteOrder, { id: '555555555' });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
  });

  it('completes an open order whose row has no pet (data from before the rules)', async () => {
    const order = await insertOrder(t, { petId: null });
    expect((await t.gqlOk(CompleteOrder, { id: order.id.toString() })).completeOrder.complete).toBe(true);
  });
});

describe('cancelling an order', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin', database });
  });
  afterAll(() => t.close());

  it('removes the open order, returns it as it was and puts the stock back', async () => {
    const pet = await makePet(t, { stock: 5 });
    const order = await t.services.orders.place(
      {
        petId: pet.id,
        quantity: 2,
        shipDate: new Date('2030-01-01T00:00:00Z'),
      },
      {},
    );
    const { cancelOrder } = await t.gqlOk(CancelOrder, { id: order.id.toString() });
    expect(cancelOrder).toEqual({
      id: order.id.toString(),
      petId: pet.id.toString(),
      quantity: 2,
      shipDate: '2030-01-01T00:00:00.000Z',
      complete: false,
    });
    expect(await ordersOf(t, pet.id)).toHaveLength(0);
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 5 });
  });

  it('makes a pending pet available again', async () => {
    const pet = await makePet(t, { stock: 2 });
    const order = await placeOrder(t, pet.id, 2);
    expect((await stockOf(t, pet.id)).status).toBe('PENDING');
    await t.gqlOk(CancelOrder, { id: order.id.toString() });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 2 });
  });

  it('rejects cancelling a completed order with INVALID_TRANSITION and keeps it', async () => {
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id);
    await t.services.orders.complete(order.id);
    const reply = await t.gql(CancelOrder, { id: order.id.toString() });
    expect(reply.errors?.[0]).toMatchObject({
      message: `Order ${order.id} is complete; a complete order cannot be cancelled`,
      extensions: { code: 'INVALID_TRANSITION', status: 409 },
    });
    expect(await ordersOf(t, pet.id)).toMatchObject([{ id: order.id, complete: true }]);
    expect(await stockOf(t, pet.id)).toEqual({ status: 'SOLD', quantity: 0 });
  });

  it('answers NOT_FOUND for an order already cancelled', async () => {
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id);
    await t.gqlOk(CancelOrder, { id: order.id.toString() });
    const reply = await t.gql(CancelOrder, { id: order.id.toString() });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 1 });
  });

  it('rejects completing a cancelled order with NOT_FOUND', async () => {
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id);
    await t.gqlOk(CancelOrder, { id: order.id.toString() });
    const reply = await t.gql(CompleteOrder, { id: order.id.toString() });
    expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
  });
});
