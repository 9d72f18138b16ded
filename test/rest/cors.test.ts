import { createTestApp, type TestApp } from '../helpers/test-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { makePet } from '../helpers/factories';
import { ordersReader, restClient } from '../helpers/rest';

const APP = 'https://app.example.com';

// One database for both settings' apps: each test reads rows of its own.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.destroy());

describe('CORS with CORS_ORIGINS set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { CORS_ORIGINS: `${APP}, http://localhost:5173` }, database });
  });
  afterAll(() => t.close());

  it('answers a preflight from an allowed origin', async () => {
    for (const url of ['/store/orders', '/graphql']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: APP,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(APP);
      expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
      expect(res.headers['access-control-max-age']).toBe('600');
    }
  });

  it('lets an allowed origin read the lifecycle and paging headers', async () => {
    const rest = await restClient(t);
    const pet = await makePet(t);
    const res = await rest.get(`/pets/${pet.id}`, { origin: APP });
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link', 'ETag', 'X-Total-Count']));
    const orders = await rest.get('/store/orders', { ...(await ordersReader(t)), origin: 'http://localhost:5173' });
    expect(orders.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('gives other origins no CORS headers', async () => {
    const res = await (
      await restClient(t)
    ).get('/store/orders', { ...(await ordersReader(t)), origin: 'https://evil.example' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ database });
  });
  afterAll(() => t.close());

  it('allows no cross-origin browser access', async () => {
    const res = await (await restClient(t)).get('/store/orders', { ...(await ordersReader(t)), origin: APP });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ORIGINS written otherwise than browsers send an origin', () => {
  let t: TestApp;
  beforeAll(async () => {
    // An uppercase host and the scheme's default port: a browser sends neither.
    t = await createTestApp({ env: { CORS_ORIGINS: 'https://App.Example.com:443' }, database });
  });
  afterAll(() => t.close());

  it('matches the origin a browser sends (lowercase host, no default port)', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/graphql',
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
  });
});
