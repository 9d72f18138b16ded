/**
 * The store rules under real concurrency: requests sent at once to one app (and so to one database:
 * PGlite by default, PostgreSQL with TEST_DATABASE_URL). The two-process case is in
 * test/http/store-processes.test.ts.
 */
import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makePet, placeOrder } from '../helpers/factories';
import { CancelOrder, CompleteOrder, PlaceOrder, ordersOf, stockOf } from './store-operations';

const DeletePetNow = graphql(`
  mutation DeletePetNow($id: ID!) {
    deletePet(id: $id) {
      id
    }
  }
`);

const codes = (replies: { errors?: { extensions: { code: string } }[] }[]) =>
  replies.map((r) => r.errors?.[0]?.extensions.code ?? 'OK');

const tally = (list: string[]) =>
  list.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c]: (acc[c] ?? 0) + 1 }), {});

describe('the store rules under concurrency', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('50 concurrent orders of 1 on a stock of 10 place exactly 10 and refuse 40 as OUT_OF_STOCK', async () => {
    const pet = await makePet(t, { stock: 10 });
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } })),
    );
    expect(tally(codes(replies))).toEqual({ OK: 10, OUT_OF_STOCK: 40 });
    const orders = await ordersOf(t, pet.id);
    expect(orders).toHaveLength(10);
    expect(new Set(orders.map((o) => o.id)).size).toBe(10);
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
  });

  it('concurrent orders of mixed sizes never take more than the stock', async () => {
    const pet = await makePet(t, { stock: 25 });
    const sizes = Array.from({ length: 30 }, (_, i) => (i % 4) + 1);
    const replies = await Promise.all(
      sizes.map((quantity) => t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity } })),
    );
    const placed = (await ordersOf(t, pet.id)).reduce((sum, o) => sum + o.quantity, 0);
    const { quantity: left } = await stockOf(t, pet.id);
    expect(placed + left).toBe(25);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(replies.filter((r) => !r.errors).length).toBe((await ordersOf(t, pet.id)).length);
    // Whatever is left is smaller than every refused order, or they would have fit.
    for (const [i, reply] of replies.entries()) {
      if (reply.errors) expect(sizes[i]!).toBeGreaterThan(left);
    }
  });

  it('a concurrent cancel and complete of one order leave it in exactly one state, with the stock consistent', async () => {
    const pet = await makePet(t, { stock: 40 });
    const orders = [];
    for (let i = 0; i < 10; i++) orders.push(await placeOrder(t, pet.id, 2)); // stock 20 left
    const results = await Promise.all(
      orders.map(async (order, i) => {
        const id = order.id.toString();
        // Alternate who is sent first, so both interleavings get exercised.
        const [cancel, complete] =
          i % 2 === 0
            ? await Promise.all([t.gql(CancelOrder, { id }), t.gql(CompleteOrder, { id })])
            : await Promise.all([t.gql(CompleteOrder, { id }), t.gql(CancelOrder, { id })]).then(([a, b]) => [b, a]);
        return { order, cancel: codes([cancel])[0], complete: codes([complete])[0] };
      }),
    );
    let returned = 0;
    for (const { order, cancel, complete } of results) {
      const row = await t.db.prisma.order.findUnique({ where: { id: order.id } });
      if (cancel === 'OK') {
        // Cancelled first: the complete found no order.
        expect(complete).toBe('NOT_FOUND');
        expect(row).toBeNull();
        returned += order.quantity;
      } else {
        // Completed first: the cancel met a complete order.
        expect([cancel, complete]).toEqual(['INVALID_TRANSITION', 'OK']);
        expect(row?.complete).toBe(true);
      }
    }
    expect((await stockOf(t, pet.id)).quantity).toBe(20 + returned);
    expect(await t.db.prisma.order.count({ where: { petId: pet.id, complete: false } })).toBe(0);
  });

  it('concurrent retries with one Idempotency-Key place one order', async () => {
    const pet = await makePet(t, { stock: 10 });
    const headers = { 'idempotency-key': `concurrent-${pet.id}` };
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } }, headers),
      ),
    );
    expect(codes(replies)).toEqual(Array(10).fill('OK'));
    expect(new Set(replies.map((r) => r.data?.placeOrder.id)).size).toBe(1);
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
    expect((await stockOf(t, pet.id)).quantity).toBe(9);
  });

  it('concurrent retries with one Idempotency-Key for the last unit all get that order, none OUT_OF_STOCK', async () => {
    const pet = await makePet(t, { stock: 1 });
    const headers = { 'idempotency-key': `last-unit-${pet.id}` };
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } }, headers)),
    );
    expect(codes(replies)).toEqual(Array(8).fill('OK'));
    expect(new Set(replies.map((r) => r.data?.placeOrder.id)).size).toBe(1);
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
    expect((await stockOf(t, pet.id)).quantity).toBe(0);
  });

  it('a pet deleted while an order is placed for it never leaves an open order without a pet', async () => {
    const pets = await Promise.all(Array.from({ length: 6 }, () => makePet(t, { stock: 3 })));
    const outcomes = await Promise.all(
      pets.map(async (pet) => {
        const [placed, deleted] = await Promise.all([
          t.gql(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } }),
          t.gql(DeletePetNow, { id: pet.id.toString() }),
        ]);
        return [codes([placed])[0], codes([deleted])[0]];
      }),
    );
    for (const outcome of outcomes) {
      // Either the order came first (the delete is refused) or the delete did (the pet is gone).
      expect([
        ['OK', 'CONFLICT'],
        ['VALIDATION_FAILED', 'OK'],
      ]).toContainEqual(outcome);
    }
    expect(await t.db.prisma.order.count({ where: { petId: null, complete: false } })).toBe(0);
  });
});
