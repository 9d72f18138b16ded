/**
 * GET /store/orders while orders are placed and cancelled: each answer is one moment of the list,
 * so its `X-Total-Count` always counts the orders it lists when they all fit in the page (on
 * PostgreSQL the page and the count used to be two statements, on two connections, and a write
 * committing between them made them disagree).
 */
import { createTestApp, type TestApp } from '../helpers/test-app';
import { makePet } from '../helpers/factories';
import { ordersReader, restClient, type RestClient } from '../helpers/rest';
import { CancelOrder, PlaceOrder } from '../graphql/store-operations';

describe('GET /store/orders under concurrent writes', () => {
  let t: TestApp;
  let rest: RestClient;
  beforeAll(async () => {
    t = await createTestApp({ auth: 'admin' });
    rest = await restClient(t);
  });
  afterAll(() => t.close());

  it('answers an X-Total-Count equal to the orders it lists while orders come and go', async () => {
    const pet = await makePet(t, { stock: 1000 });
    const petId = pet.id.toString();
    let writing = true;
    const churn = async () => {
      while (writing) {
        const placed = await t.gqlOk(PlaceOrder, { input: { petId, quantity: 1 } });
        await t.gqlOk(CancelOrder, { id: placed.placeOrder.id });
      }
    };
    const reader = await ordersReader(t);
    const mismatches: { count: string; listed: number }[] = [];
    const read = async () => {
      for (let i = 0; i < 150; i++) {
        const res = await rest.get(`/store/orders?petId=${petId}&limit=100`, reader);
        expect(res.statusCode).toBe(200);
        const listed = (res.json() as unknown[]).length;
        const count = res.headers['x-total-count'] as string;
        if (Number(count) !== listed) mismatches.push({ count, listed });
      }
    };
    const writers = Array.from({ length: 4 }, churn);
    await Promise.all([read(), read()]).finally(() => (writing = false));
    await Promise.all(writers);
    expect(mismatches).toEqual([]);
  });
});
