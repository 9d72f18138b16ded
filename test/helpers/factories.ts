/**
 * Test data through the services (the same rules as the API), plus direct inserts for rows that no
 * public operation can create at all (ids above 2^53, orders outside the store rules).
 */
import type { TestApp } from './test-app';

let seq = 0;
const unique = (prefix: string) => `${prefix} ${++seq}-${Math.random().toString(36).slice(2, 7)}`;

export async function makeCategory(t: TestApp, name = unique('Category')) {
  return t.services.categories.create({ name });
}

export async function makePet(
  t: TestApp,
  fields: { name?: string; categoryId?: bigint; status?: 'available' | 'pending' | 'sold'; stock?: number } = {},
) {
  const categoryId = fields.categoryId ?? (await makeCategory(t)).id;
  const pet = await t.services.pets.create({ name: fields.name ?? unique('Pet'), categoryId, status: fields.status });
  if (fields.stock !== undefined) await t.services.inventory.update(pet.id, { quantity: fields.stock });
  return pet;
}

/** Places an order through the store rules (stock taken, status settled). */
export async function placeOrder(t: TestApp, petId: bigint, quantity = 1) {
  return t.services.orders.place({ petId, quantity }, {});
}

/** Inserts an order row directly, bypassing the store rules (no stock movement, no status change). */
export async function insertOrder(
  t: TestApp,
  fields: { petId: bigint | null; quantity?: number; complete?: boolean; shipDate?: Date | null },
) {
  return t.db.prisma.order.create({
    data: {
      petId: fields.petId,
      quantity: fields.quantity ?? 1,
      complete: fields.complete ?? false,
      shipDate: fields.shipDate ?? null,
    },
  });
}
