/**
 * Every state change and its stock movement happen in one transaction. Each test injects a failure
 * into the last write of an operation (a trigger, created in this suite's own database, that raises
 * when the pet's status is updated) and checks that nothing of the earlier writes remains.
 */
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makePet, placeOrder } from '../helpers/factories';
import { CancelOrder, CompleteOrder, PlaceOrder, UpdateInventory, ordersOf, stockOf } from './store-operations';

describe('a failure midway through a store operation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  /** Makes every update of this pet's row fail (inside whatever transaction does it) while `fn` runs. */
  async function withFailingStatusUpdate(petId: bigint, fn: () => Promise<void>): Promise<void> {
    const name = `fail_pet_${petId}`;
    await t.db.prisma.$executeRawUnsafe(`
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id = ${petId} THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$`);
    await t.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${name} BEFORE UPDATE ON pets FOR EACH ROW EXECUTE FUNCTION ${name}()`,
    );
    try {
      await fn();
    } finally {
      await t.db.prisma.$executeRawUnsafe(`DROP TRIGGER ${name} ON pets`);
      await t.db.prisma.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
    }
  }

  const expectInternal = (reply: { errors?: { extensions: { code: string } }[] }) =>
    expect(reply.errors?.[0]?.extensions.code).toBe('INTERNAL');

  it('placeOrder: the stock taken, the order and the idempotency key are all rolled back', async () => {
    const pet = await makePet(t, { stock: 2 });
    const key = `rollback-${pet.id}`;
    await withFailingStatusUpdate(pet.id, async () => {
      // Taking the last 2 units moves the pet to pending: that write fails after the others.
      const reply = await t.gql(
        PlaceOrder,
        { input: { petId: pet.id.toString(), quantity: 2 } },
        { 'idempotency-key': key },
      );
      expectInternal(reply);
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 2 });
    expect(await ordersOf(t, pet.id)).toHaveLength(0);
    expect(await t.db.prisma.idempotencyKey.count({ where: { key } })).toBe(0);
    // The same key then places the order normally.
    const retry = await t.gql(
      PlaceOrder,
      { input: { petId: pet.id.toString(), quantity: 2 } },
      { 'idempotency-key': key },
    );
    expect(retry.errors).toBeUndefined();
  });

  it('cancelOrder: the order stays open and the stock stays out', async () => {
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id); // pending
    await withFailingStatusUpdate(pet.id, async () => {
      expectInternal(await t.gql(CancelOrder, { id: order.id.toString() }));
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
    expect(await ordersOf(t, pet.id)).toMatchObject([{ id: order.id, complete: false, shipDate: null }]);
  });

  it('completeOrder: the order stays open without a ship date', async () => {
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id); // pending; completing it sells the pet
    await withFailingStatusUpdate(pet.id, async () => {
      expectInternal(await t.gql(CompleteOrder, { id: order.id.toString() }));
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
    expect(await ordersOf(t, pet.id)).toMatchObject([{ id: order.id, complete: false, shipDate: null }]);
  });

  it('updateInventory: the old stock stays', async () => {
    const pet = await makePet(t, { stock: 1 });
    await placeOrder(t, pet.id); // pending; a restock makes it available
    await withFailingStatusUpdate(pet.id, async () => {
      expectInternal(await t.gql(UpdateInventory, { petId: pet.id.toString(), quantity: 9 }));
    });
    expect(await stockOf(t, pet.id)).toEqual({ status: 'PENDING', quantity: 0 });
  });
});
