/**
 * Test data through the services (the same rules as the API), plus direct inserts for rows that no
 * public operation can create yet or at all (orders before the store issue, ids above 2^53).
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

/** Inserts an order row directly (placing orders is the store rules' business). */
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
