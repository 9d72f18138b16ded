import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet, placeOrder } from '../helpers/factories';
import { SetStatus, UpdateInventory, ordersOf, stockOf } from './store-operations';

const UpdatePetStatus = graphql(`
  mutation UpdatePetStatus($id: ID!, $name: String, $status: PetStatus) {
    updatePet(id: $id, input: { name: $name, status: $status }) {
      id
      name
      status
    }
  }
`);

const CreatePetWithStatus = graphql(`
  mutation CreatePetWithStatus($categoryId: ID!, $status: PetStatus) {
    createPet(input: { name: "Fresh", categoryId: $categoryId, status: $status }) {
      id
      status
    }
  }
`);

const Summary = graphql(`
  query StockSummary {
    inventorySummary {
      status
      quantity
    }
  }
`);

const DeletePetById = graphql(`
  mutation DeletePetById($id: ID!) {
    deletePet(id: $id) {
      id
    }
  }
`);

type Status = 'AVAILABLE' | 'PENDING' | 'SOLD';

describe('the pet-status lifecycle', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  /** A pet brought into `status` through the rules themselves. */
  async function petIn(status: Status, stock = 0) {
    if (status === 'AVAILABLE') return makePet(t, { stock });
    const pet = await makePet(t, { stock: 1 });
    const order = await placeOrder(t, pet.id); // takes the last unit: pending
    if (status === 'SOLD') await t.services.orders.complete(order.id);
    return pet;
  }

  describe('setPetStatus', () => {
    it.each<[Status, Status]>([
      ['AVAILABLE', 'SOLD'],
      ['SOLD', 'AVAILABLE'],
      ['AVAILABLE', 'AVAILABLE'],
      ['PENDING', 'PENDING'],
      ['SOLD', 'SOLD'],
    ])('allows %s -> %s for a pet without stock or open orders', async (from, to) => {
      const pet = await petIn(from);
      const { setPetStatus } = await t.gqlOk(SetStatus, { id: pet.id.toString(), status: to });
      expect(setPetStatus.status).toBe(to);
      expect((await stockOf(t, pet.id)).status).toBe(to);
    });

    it.each<[Status, Status, RegExp]>([
      ['AVAILABLE', 'PENDING', /becomes pending only when open orders hold its last stock/],
      ['SOLD', 'PENDING', /becomes pending only when open orders hold its last stock/],
      ['PENDING', 'AVAILABLE', /pending pet becomes sold when its orders complete/],
      ['PENDING', 'SOLD', /pending pet becomes sold when its orders complete/],
    ])('rejects %s -> %s with INVALID_TRANSITION', async (from, to, why) => {
      const pet = await petIn(from);
      const reply = await t.gql(SetStatus, { id: pet.id.toString(), status: to });
      expect(reply.errors?.[0]).toMatchObject({
        message: expect.stringMatching(why),
        extensions: { code: 'INVALID_TRANSITION', status: 409 },
      });
      expect((await stockOf(t, pet.id)).status).toBe(from);
    });

    it('rejects selling a pet that still has stock', async () => {
      const pet = await petIn('AVAILABLE', 4);
      const reply = await t.gql(SetStatus, { id: pet.id.toString(), status: 'SOLD' });
      expect(reply.errors?.[0]).toMatchObject({
        message: `Pet ${pet.id} cannot go from available to sold: it still has 4 in stock (set the stock to 0 first)`,
        extensions: { code: 'INVALID_TRANSITION', status: 409 },
      });
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 4 });
    });

    it('relists a sold pet with its stock still at 0, and refuses orders until a restock', async () => {
      const pet = await petIn('SOLD');
      await t.gqlOk(SetStatus, { id: pet.id.toString(), status: 'AVAILABLE' });
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 0 });
      await expect(placeOrder(t, pet.id)).rejects.toMatchObject({ code: 'OUT_OF_STOCK' });
    });
  });

  describe('updatePet', () => {
    it('follows the same rules for status and changes nothing when it refuses', async () => {
      const pet = await petIn('PENDING');
      const reply = await t.gql(UpdatePetStatus, { id: pet.id.toString(), name: 'Renamed', status: 'AVAILABLE' });
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'INVALID_TRANSITION', status: 409 });
      expect((await t.services.pets.get(pet.id))?.name).toBe(pet.name);
    });

    it('renames a pending pet when no status is given', async () => {
      const pet = await petIn('PENDING');
      const { updatePet } = await t.gqlOk(UpdatePetStatus, { id: pet.id.toString(), name: 'Renamed' });
      expect(updatePet).toMatchObject({ name: 'Renamed', status: 'PENDING' });
    });

    it('still answers an unknown category with VALIDATION_FAILED', async () => {
      const pet = await petIn('AVAILABLE');
      const reply = await t.gql(
        graphql(`
          mutation MovePet($id: ID!, $categoryId: ID!) {
            updatePet(id: $id, input: { categoryId: $categoryId }) {
              id
            }
          }
        `),
        { id: pet.id.toString(), categoryId: '987654321' },
      );
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'VALIDATION_FAILED', status: 400 });
    });
  });

  describe('createPet', () => {
    it('creates a pet available or sold, never pending', async () => {
      const category = await makeCategory(t);
      const sold = await t.gqlOk(CreatePetWithStatus, { categoryId: category.id.toString(), status: 'SOLD' });
      expect(sold.createPet.status).toBe('SOLD');
      const before = await t.db.prisma.pet.count();
      const reply = await t.gql(CreatePetWithStatus, { categoryId: category.id.toString(), status: 'PENDING' });
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'INVALID_TRANSITION', status: 409 });
      expect(await t.db.prisma.pet.count()).toBe(before);
    });
  });

  describe('updateInventory', () => {
    it('rejects a negative stock with VALIDATION_FAILED and keeps the old one', async () => {
      const pet = await petIn('AVAILABLE', 3);
      const reply = await t.gql(UpdateInventory, { petId: pet.id.toString(), quantity: -1 });
      expect(reply.errors?.[0]).toMatchObject({
        message: 'quantity: must be 0 or more',
        extensions: { code: 'VALIDATION_FAILED', status: 400 },
      });
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 3 });
    });

    it.each<[Status]>([['PENDING'], ['SOLD']])('makes a %s pet available again on restock', async (from) => {
      const pet = await petIn(from);
      const { updateInventory } = await t.gqlOk(UpdateInventory, { petId: pet.id.toString(), quantity: 7 });
      expect(updateInventory).toEqual({ petId: pet.id.toString(), quantity: 7, status: 'AVAILABLE' });
      expect(await stockOf(t, pet.id)).toEqual({ status: 'AVAILABLE', quantity: 7 });
    });

    it('keeps the open orders of a pending pet that is restocked', async () => {
      const pet = await petIn('PENDING');
      await t.gqlOk(UpdateInventory, { petId: pet.id.toString(), quantity: 2 });
      expect(await ordersOf(t, pet.id)).toMatchObject([{ complete: false }]);
    });

    it('makes an available pet with open orders pending when its stock is set to 0', async () => {
      const pet = await petIn('AVAILABLE', 5);
      await placeOrder(t, pet.id, 2);
      const { updateInventory } = await t.gqlOk(UpdateInventory, { petId: pet.id.toString(), quantity: 0 });
      expect(updateInventory.status).toBe('PENDING');
    });

    it.each<[Status]>([['AVAILABLE'], ['SOLD']])(
      'leaves a %s pet without open orders as it is at stock 0',
      async (from) => {
        const pet = await petIn(from);
        const { updateInventory } = await t.gqlOk(UpdateInventory, { petId: pet.id.toString(), quantity: 0 });
        expect(updateInventory).toMatchObject({ quantity: 0, status: from });
      },
    );

    it('answers NOT_FOUND for a pet that does not exist', async () => {
      const reply = await t.gql(UpdateInventory, { petId: '424242424', quantity: 1 });
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    });
  });

  describe('deletePet', () => {
    it('refuses a pet with open orders (CONFLICT), and deletes it once they are cancelled', async () => {
      const pet = await petIn('AVAILABLE', 2);
      const order = await placeOrder(t, pet.id);
      const reply = await t.gql(DeletePetById, { id: pet.id.toString() });
      expect(reply.errors?.[0]?.extensions).toEqual({ code: 'CONFLICT', status: 409 });
      await t.services.orders.cancel(order.id, { all: true });
      expect((await t.gqlOk(DeletePetById, { id: pet.id.toString() })).deletePet.id).toBe(pet.id.toString());
    });
  });
});

describe('inventorySummary', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('lists all three statuses, at 0 when no pet has one', async () => {
    expect((await t.gqlOk(Summary)).inventorySummary).toEqual([
      { status: 'AVAILABLE', quantity: 0 },
      { status: 'PENDING', quantity: 0 },
      { status: 'SOLD', quantity: 0 },
    ]);
  });

  it('totals the stock per status as orders and restocks move pets between statuses', async () => {
    const a = await makePet(t, { stock: 5 });
    const b = await makePet(t, { stock: 2 });
    await makePet(t, { stock: 0, status: 'sold' });
    const totals = async () =>
      Object.fromEntries((await t.gqlOk(Summary)).inventorySummary.map((c) => [c.status, c.quantity]));
    expect(await totals()).toEqual({ AVAILABLE: 7, PENDING: 0, SOLD: 0 });
    await placeOrder(t, a.id, 1);
    const held = await placeOrder(t, b.id, 2); // b: pending, its stock held by the order
    expect(await totals()).toEqual({ AVAILABLE: 4, PENDING: 0, SOLD: 0 });
    await t.services.orders.cancel(held.id, { all: true }); // b: available again with its 2
    expect(await totals()).toEqual({ AVAILABLE: 6, PENDING: 0, SOLD: 0 });
  });
});
