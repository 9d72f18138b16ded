import { createApiKey, createTestApp, type TestApp } from '../helpers/test-app';
import { makePet } from '../helpers/factories';
import { CancelOrder, PlaceOrder, ordersOf, stockOf } from './store-operations';

let keySeq = 0;
const newKey = () => `key-${process.pid}-${++keySeq}-${Math.random().toString(36).slice(2)}`;

describe('placeOrder with an Idempotency-Key', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  const place = (petId: bigint | string | number, quantity: number, key?: string, shipDate?: string) =>
    t.gql(
      PlaceOrder,
      { input: { petId: typeof petId === 'bigint' ? petId.toString() : petId, quantity, shipDate } },
      key === undefined ? {} : { 'idempotency-key': key },
    );

  it('returns the first order to a retry with the same key and request, taking the stock once', async () => {
    const pet = await makePet(t, { stock: 5 });
    const key = newKey();
    const first = await place(pet.id, 2, key);
    const retry = await place(pet.id, 2, key);
    expect(first.errors).toBeUndefined();
    expect(retry.errors).toBeUndefined();
    expect(retry.data?.placeOrder.id).toBe(first.data?.placeOrder.id);
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
    expect((await stockOf(t, pet.id)).quantity).toBe(3);
  });

  it('treats the same request spelled differently as the same request', async () => {
    const pet = await makePet(t, { stock: 5 });
    const key = newKey();
    const first = await place(pet.id.toString(), 1, key, '2030-01-01T10:00:00Z');
    const retry = await place(Number(pet.id), 1, key, '2030-01-01T10:00:00.000Z');
    expect(retry.data?.placeOrder.id).toBe(first.data?.placeOrder.id);
  });

  it('rejects the same key with a different request with CONFLICT and places nothing', async () => {
    const pet = await makePet(t, { stock: 5 });
    const key = newKey();
    await place(pet.id, 1, key);
    const reply = await place(pet.id, 2, key);
    expect(reply.errors?.[0]).toMatchObject({
      message: 'Idempotency-Key: this key was already used with a different request',
      extensions: { code: 'CONFLICT', status: 409 },
    });
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
    expect((await stockOf(t, pet.id)).quantity).toBe(4);
  });

  it('places a new order for a new key or for no key', async () => {
    const pet = await makePet(t, { stock: 5 });
    await place(pet.id, 1, newKey());
    await place(pet.id, 1, newKey());
    await place(pet.id, 1);
    await place(pet.id, 1);
    expect(await ordersOf(t, pet.id)).toHaveLength(4);
  });

  it('does not remember a failed placement: the same key works once there is stock', async () => {
    const pet = await makePet(t, { stock: 0 });
    const key = newKey();
    expect((await place(pet.id, 1, key)).errors?.[0]?.extensions.code).toBe('OUT_OF_STOCK');
    await t.services.inventory.update(pet.id, { quantity: 1 });
    const retry = await place(pet.id, 1, key);
    expect(retry.errors).toBeUndefined();
    expect(await ordersOf(t, pet.id)).toHaveLength(1);
  });

  it('answers a retry after the order was cancelled with CONFLICT, never a second order', async () => {
    const pet = await makePet(t, { stock: 5 });
    const key = newKey();
    const first = await place(pet.id, 1, key);
    await t.gqlOk(CancelOrder, { id: first.data!.placeOrder.id });
    const retry = await place(pet.id, 1, key);
    expect(retry.errors?.[0]).toMatchObject({
      message: 'Idempotency-Key: the order placed with this key has been cancelled',
      extensions: { code: 'CONFLICT', status: 409 },
    });
    expect(await ordersOf(t, pet.id)).toHaveLength(0);
  });

  it('remembers a key for 24 hours, then treats it as new', async () => {
    const pet = await makePet(t, { stock: 5 });
    const key = newKey();
    const first = await place(pet.id, 1, key);
    const orderId = BigInt(first.data!.placeOrder.id);
    const [row] = await t.db.prisma.$queryRaw<{ ttl: number }[]>`
      SELECT EXTRACT(EPOCH FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE order_id = ${orderId}`;
    expect(row?.ttl).toBe(24 * 60 * 60);
    // A day later: the key has expired, so even a different request is accepted as new.
    await t.db.prisma.$executeRaw`
      UPDATE idempotency_keys SET created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour'
      WHERE order_id = ${orderId}`;
    const later = await place(pet.id, 2, key);
    expect(later.errors).toBeUndefined();
    expect(await ordersOf(t, pet.id)).toHaveLength(2);
    // ...and it is remembered afresh for the new request.
    expect((await place(pet.id, 2, key)).data?.placeOrder.id).toBe(later.data?.placeOrder.id);
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'two words'],
    ['a key over 255 characters', 'k'.repeat(256)],
    ['a key with a non-ASCII character', 'clé'],
  ])('rejects %s with VALIDATION_FAILED', async (_label, key) => {
    const pet = await makePet(t, { stock: 5 });
    const reply = await t.gql(
      PlaceOrder,
      { input: { petId: pet.id.toString(), quantity: 1 } },
      // Node refuses to send raw non-ASCII header bytes from a string; send them as latin1.
      { 'idempotency-key': Buffer.from(key, 'utf8').toString('latin1') },
    );
    expect(reply.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Idempotency-Key: /),
      extensions: { code: 'VALIDATION_FAILED', status: 400 },
    });
    expect(await ordersOf(t, pet.id)).toHaveLength(0);
  });

  describe('sent by another caller', () => {
    // Two tenants, each with its own orders:write key (issue 28, item 1).
    let alice: Record<string, string>;
    let mallory: Record<string, string>;
    beforeAll(async () => {
      alice = await createApiKey(t, ['orders:read', 'orders:write'], 'alice');
      mallory = await createApiKey(t, ['orders:read', 'orders:write'], 'mallory');
    });
    const placeAs = (who: Record<string, string>, petId: bigint, quantity: number, key: string) =>
      t.gql(PlaceOrder, { input: { petId: petId.toString(), quantity } }, { ...who, 'idempotency-key': key });

    it("never hands one caller's order to another: the same key and request place a second order", async () => {
      const pet = await makePet(t, { stock: 100 });
      const key = newKey();
      const victim = await placeAs(alice, pet.id, 1, key);
      const attacker = await placeAs(mallory, pet.id, 1, key);
      expect(victim.errors).toBeUndefined();
      expect(attacker.errors).toBeUndefined();
      expect(attacker.data?.placeOrder.id).not.toBe(victim.data?.placeOrder.id);
      expect(await ordersOf(t, pet.id)).toHaveLength(2);
      expect((await stockOf(t, pet.id)).quantity).toBe(98);
      // Each caller's retry still finds its own order.
      expect((await placeAs(alice, pet.id, 1, key)).data?.placeOrder.id).toBe(victim.data?.placeOrder.id);
      expect((await placeAs(mallory, pet.id, 1, key)).data?.placeOrder.id).toBe(attacker.data?.placeOrder.id);
    });

    it("places the victim's order when an attacker used the key first", async () => {
      const pet = await makePet(t, { stock: 100 });
      const key = newKey();
      const attacker = await placeAs(mallory, pet.id, 1, key);
      const victim = await placeAs(alice, pet.id, 1, key);
      expect(victim.errors).toBeUndefined();
      expect(victim.data?.placeOrder.id).not.toBe(attacker.data?.placeOrder.id);
      expect((await stockOf(t, pet.id)).quantity).toBe(98);
    });

    it('does not reveal that another caller uses the key: a different request is placed, not CONFLICT', async () => {
      const pet = await makePet(t, { stock: 100 });
      const key = newKey();
      await placeAs(alice, pet.id, 1, key);
      const probe = await placeAs(mallory, pet.id, 3, key);
      expect(probe.errors).toBeUndefined();
      expect(probe.data?.placeOrder.quantity).toBe(3);
      // ...nor that its order was cancelled.
      const cancelledKey = newKey();
      const own = await placeAs(alice, pet.id, 1, cancelledKey);
      await t.gqlOk(CancelOrder, { id: own.data!.placeOrder.id });
      expect((await placeAs(mallory, pet.id, 1, cancelledKey)).errors).toBeUndefined();
    });
  });

  it('accepts a key of 255 visible characters', async () => {
    const pet = await makePet(t, { stock: 5 });
    expect((await place(pet.id, 1, `${'k'.repeat(250)}!~#$%`)).errors).toBeUndefined();
  });
});

describe('expired idempotency keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('are deleted lazily by a later keyed placement', async () => {
    await t.db.prisma.$executeRaw`
      INSERT INTO idempotency_keys (key, fingerprint, created_at, expires_at)
      VALUES ('stale', ${'0'.repeat(64)}, now() - interval '2 days', now() - interval '1 day')`;
    const pet = await makePet(t, { stock: 1 });
    await t.gqlOk(PlaceOrder, { input: { petId: pet.id.toString(), quantity: 1 } }, { 'idempotency-key': newKey() });
    const keys = await t.db.prisma.$queryRaw<{ key: string }[]>`SELECT key FROM idempotency_keys`;
    expect(keys.map((k) => k.key)).not.toContain('stale');
    expect(keys).toHaveLength(1);
  });
});
