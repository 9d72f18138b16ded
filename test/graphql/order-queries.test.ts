import { graphql } from '../gql';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { insertOrder, makePet } from '../helpers/factories';
import { OrderById } from './store-operations';

const Orders = graphql(`
  query Orders($filter: OrderFilter, $first: Int, $after: String) {
    orders(filter: $filter, first: $first, after: $after) {
      totalCount
      nodes {
        id
        petId
        quantity
        complete
        shipDate
        pet {
          name
          category {
            name
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const PetOrders = graphql(`
  query PetOrders($id: ID!, $first: Int) {
    pet(id: $id) {
      orders(first: $first) {
        totalCount
        nodes {
          id
        }
        pageInfo {
          hasNextPage
        }
      }
    }
  }
`);

describe('order queries', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
  });
  afterAll(() => t.close());

  it('lists orders newest first with their pet, filtered by completion and pet', async () => {
    const rex = await makePet(t, { name: 'Rex' });
    const tom = await makePet(t, { name: 'Tom' });
    const o1 = await insertOrder(t, { petId: rex.id, complete: true, shipDate: new Date('2026-01-02T03:04:05.000Z') });
    const o2 = await insertOrder(t, { petId: tom.id });
    const o3 = await insertOrder(t, { petId: rex.id, quantity: 2 });

    const all = await t.gqlOk(Orders, { filter: { petId: rex.id.toString() } });
    expect(all.orders.totalCount).toBe(2);
    expect(all.orders.nodes.map((o) => o.id)).toEqual([o3.id.toString(), o1.id.toString()]);
    expect(all.orders.nodes[1]).toMatchObject({
      complete: true,
      shipDate: '2026-01-02T03:04:05.000Z',
      pet: { name: 'Rex' },
    });

    const open = await t.gqlOk(Orders, { filter: { complete: false } });
    expect(open.orders.nodes.map((o) => o.id)).toEqual(expect.arrayContaining([o2.id.toString(), o3.id.toString()]));
    expect(open.orders.nodes.every((o) => o.complete === false)).toBe(true);
  });

  it('reads one order, and null for an unknown id', async () => {
    const pet = await makePet(t);
    const order = await insertOrder(t, { petId: pet.id, quantity: 3 });
    expect((await t.gqlOk(OrderById, { id: order.id.toString() })).order).toEqual({
      id: order.id.toString(),
      quantity: 3,
      shipDate: null,
      pet: { id: pet.id.toString() },
    });
    expect((await t.gqlOk(OrderById, { id: '123456789' })).order).toBeNull();
  });

  it("pages a pet's orders", async () => {
    const pet = await makePet(t);
    for (let i = 0; i < 3; i++) await insertOrder(t, { petId: pet.id });
    const data = await t.gqlOk(PetOrders, { id: pet.id.toString(), first: 2 });
    expect(data.pet?.orders).toMatchObject({ totalCount: 3, pageInfo: { hasNextPage: true } });
    expect(data.pet?.orders.nodes).toHaveLength(2);
  });

  it('keeps a completed order of a deleted pet, with no pet', async () => {
    const pet = await makePet(t);
    const order = await insertOrder(t, { petId: pet.id, complete: true });
    await t.services.pets.delete(pet.id);
    expect((await t.gqlOk(OrderById, { id: order.id.toString() })).order?.pet).toBeNull();
  });

  it('refuses to delete a pet with an open order', async () => {
    const pet = await makePet(t);
    await insertOrder(t, { petId: pet.id, complete: false });
    await expect(t.services.pets.delete(pet.id)).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});
