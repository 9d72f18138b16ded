import { createTestApp, type TestApp } from '../helpers/test-app';
import { insertOrder, makePet } from '../helpers/factories';
import { ordersReader, restClient, type RestClient } from '../helpers/rest';

interface RestOrder {
  id: number;
  petId: number | null;
  quantity: number;
  shipDate: string | null;
  complete: boolean;
}

/** `Link` as { rel: href }. */
function links(header: string | string[] | number | undefined): Record<string, string> {
  if (typeof header !== 'string') return {};
  return Object.fromEntries(
    header.split(/,\s*(?=<)/).map((part) => {
      const [, href, rel] = part.match(/^<([^>]*)>;\s*rel="([^"]+)"$/)!;
      return [rel!, href!];
    }),
  );
}

describe('GET /store/orders', () => {
  let t: TestApp;
  let rest: RestClient;
  const get = async (url: string) => rest.get(url, await ordersReader(t));
  beforeAll(async () => {
    t = await createTestApp();
    rest = await restClient(t);
  });
  afterAll(() => t.close());

  it('answers every order field, newest first, not cached', async () => {
    const pet = await makePet(t);
    const older = await insertOrder(t, { petId: pet.id, quantity: 2, shipDate: new Date('2026-05-01T10:00:00Z') });
    const newer = await insertOrder(t, { petId: pet.id, quantity: 1, complete: true });
    const res = await get(`/store/orders?petId=${pet.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { id: Number(newer.id), petId: Number(pet.id), quantity: 1, shipDate: null, complete: true },
      {
        id: Number(older.id),
        petId: Number(pet.id),
        quantity: 2,
        shipDate: '2026-05-01T10:00:00.000Z',
        complete: false,
      },
    ]);
    expect(res.headers['x-total-count']).toBe('2');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.link).toBeUndefined();
  });

  it('lists all orders newest first without filters, including orders of deleted pets', async () => {
    await insertOrder(t, { petId: null, complete: true });
    const res = await get('/store/orders?limit=100');
    const ids = (res.json() as RestOrder[]).map((o) => o.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((res.json() as RestOrder[])[0]).toMatchObject({ petId: null, complete: true });
  });

  it('filters by complete and by petId, alone and together', async () => {
    const pet = await makePet(t);
    const open = await insertOrder(t, { petId: pet.id });
    const done = await insertOrder(t, { petId: pet.id, complete: true });
    await insertOrder(t, { petId: (await makePet(t)).id, complete: true });
    const ids = async (query: string) => ((await get(`/store/orders?${query}`)).json() as RestOrder[]).map((o) => o.id);
    expect(await ids(`petId=${pet.id}&complete=false`)).toEqual([Number(open.id)]);
    expect(await ids(`petId=${pet.id}&complete=true`)).toEqual([Number(done.id)]);
    const completed = await get('/store/orders?complete=true&limit=100');
    expect((completed.json() as RestOrder[]).every((o) => o.complete)).toBe(true);
    expect(Number(completed.headers['x-total-count'])).toBe((completed.json() as RestOrder[]).length);
    const open2 = await get('/store/orders?complete=false&limit=100');
    expect((open2.json() as RestOrder[]).every((o) => !o.complete)).toBe(true);
  });

  it('pages by limit and offset with X-Total-Count and next/prev links that keep the filters', async () => {
    const pet = await makePet(t);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await insertOrder(t, { petId: pet.id }));
    const newestFirst = made.map((o) => Number(o.id)).reverse();
    const base = `/store/orders?complete=false&petId=${pet.id}`;

    const first = await get(`${base}&limit=2`);
    expect(first.headers['x-total-count']).toBe('5');
    expect((first.json() as RestOrder[]).map((o) => o.id)).toEqual(newestFirst.slice(0, 2));
    expect(links(first.headers.link)).toEqual({
      next: `/store/orders?complete=false&petId=${pet.id}&limit=2&offset=2`,
    });

    const middle = await get(`${base}&limit=2&offset=2`);
    expect((middle.json() as RestOrder[]).map((o) => o.id)).toEqual(newestFirst.slice(2, 4));
    expect(links(middle.headers.link)).toEqual({
      next: `/store/orders?complete=false&petId=${pet.id}&limit=2&offset=4`,
      prev: `/store/orders?complete=false&petId=${pet.id}&limit=2&offset=0`,
    });

    const last = await get(`${base}&limit=2&offset=4`);
    expect((last.json() as RestOrder[]).map((o) => o.id)).toEqual(newestFirst.slice(4));
    expect(links(last.headers.link)).toEqual({ prev: `/store/orders?complete=false&petId=${pet.id}&limit=2&offset=2` });
  });

  it('reaches every order exactly once by following rel="next"', async () => {
    const pet = await makePet(t);
    for (let i = 0; i < 7; i++) await insertOrder(t, { petId: pet.id });
    const seen: number[] = [];
    let url: string | undefined = `/store/orders?petId=${pet.id}&limit=3`;
    while (url) {
      const res = await get(url);
      seen.push(...(res.json() as RestOrder[]).map((o) => o.id));
      url = links(res.headers.link).next;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('points rel="prev" from beyond the end at the last page that has orders', async () => {
    const pet = await makePet(t);
    for (let i = 0; i < 3; i++) await insertOrder(t, { petId: pet.id });
    const res = await get(`/store/orders?petId=${pet.id}&limit=2&offset=10`);
    expect(res.json()).toEqual([]);
    expect(res.headers['x-total-count']).toBe('3');
    expect(links(res.headers.link)).toEqual({ prev: `/store/orders?petId=${pet.id}&limit=2&offset=2` });
  });

  it('answers an empty page with no links when nothing matches', async () => {
    const pet = await makePet(t);
    const res = await get(`/store/orders?petId=${pet.id}&offset=5`);
    expect(res.json()).toEqual([]);
    expect(res.headers['x-total-count']).toBe('0');
    expect(res.headers.link).toBeUndefined();
  });

  it('pages 20 orders by default and accepts the largest offset', async () => {
    const pet = await makePet(t);
    for (let i = 0; i < 21; i++) await insertOrder(t, { petId: pet.id });
    const res = await get(`/store/orders?petId=${pet.id}`);
    expect(res.json()).toHaveLength(20);
    expect(links(res.headers.link).next).toBe(`/store/orders?petId=${pet.id}&limit=20&offset=20`);
    const far = await get(`/store/orders?petId=${pet.id}&offset=2147483647`);
    expect(far.statusCode).toBe(200);
    expect(far.json()).toEqual([]);
  });

  it('reads limit and offset written with leading zeros as their value, however many', async () => {
    const pet = await makePet(t);
    for (let i = 0; i < 3; i++) await insertOrder(t, { petId: pet.id });
    const all = (await get(`/store/orders?petId=${pet.id}`)).json() as { id: number }[];
    const res = await get(`/store/orders?petId=${pet.id}&limit=0000000000001&offset=00000000000001`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([all[1]]);
    expect(links(res.headers.link).next).toBe(`/store/orders?petId=${pet.id}&limit=1&offset=2`);
  });

  it('writes ids above 2^53 with all their digits', async () => {
    const category = await t.db.prisma.category.create({ data: { name: 'Orders of big pets' } });
    const pet = await t.db.prisma.pet.create({
      data: { id: 9007199254740997n, name: 'Big', categoryId: category.id, inventory: { create: { quantity: 0 } } },
    });
    const order = await t.db.prisma.order.create({ data: { id: 9007199254740999n, petId: pet.id, quantity: 3 } });
    const res = await get('/store/orders?petId=9007199254740997');
    expect(res.body).toBe(
      `[{"id":${order.id},"petId":9007199254740997,"quantity":3,"shipDate":null,"complete":false}]`,
    );
  });

  it.each([
    ['limit', 'limit=0', 'limit: must be >= 1'],
    ['limit', 'limit=101', 'limit: must be <= 100'],
    ['limit', 'limit=ten', 'limit: must be integer'],
    ['limit', 'limit=2.5', 'limit: must be integer'],
    // Read as numbers by the schema's coercion, though no client means them as a page size.
    ['limit', 'limit=0x1', 'limit: must be integer'],
    ['limit', 'limit=1e0', 'limit: must be integer'],
    ['limit', 'limit=%2B1', 'limit: must be integer'],
    ['limit', 'limit=%201', 'limit: must be integer'],
    ['limit', 'limit=1&limit=2', 'limit: must be integer'],
    ['offset', 'offset=0x1', 'offset: must be integer'],
    ['offset', 'offset=1.0', 'offset: must be integer'],
    ['offset', 'offset=-1', 'offset: must be >= 0'],
    ['offset', 'offset=2147483648', 'offset: must be <= 2147483647'],
    // Out of range whatever the number of digits (it was "must be integer" from 13 digits on).
    ['offset', 'offset=99999999999999', 'offset: must be <= 2147483647'],
    ['offset', `offset=${'9'.repeat(400)}`, 'offset: must be <= 2147483647'],
    ['limit', 'limit=1000000000000', 'limit: must be <= 100'],
    ['limit', 'limit=-0000000000001', 'limit: must be >= 1'],
    ['complete', 'complete=maybe', 'complete: must be boolean'],
    ['petId', 'petId=abc', 'petId: must be a 64-bit integer id in decimal digits'],
    ['petId', 'petId=9223372036854775808', 'petId: must be a 64-bit integer id in decimal digits'],
  ])('rejects a bad %s (%s) with VALIDATION_FAILED naming it', async (_name, query, message) => {
    const res = await get(`/store/orders?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'VALIDATION_FAILED', message, status: 400 });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await rest.request({
      method: 'POST',
      url: '/store/orders',
      headers: await ordersReader(t),
      payload: {},
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    expect(res.headers.deprecation).toBeUndefined();
  });
});
