import { createTestApp, type TestApp } from '../helpers/test-app';
import { makeCategory, makePet } from '../helpers/factories';
import { ordersReader, restClient, type RestClient } from '../helpers/rest';

// Fixed dates, so the headers are exact and the clock can stand on either side of the sunset.
const DEPRECATED = '2026-01-15T00:00:00Z';
const SUNSET = '2026-06-30T12:00:00Z';
const env = {
  PETS_PATH_DEPRECATION_DATE: DEPRECATED,
  PETS_PATH_SUNSET_DATE: SUNSET,
  DEPRECATION_DOCS_URL: 'https://docs.example.com/petstore/deprecations#pets',
};
const lifecycleHeaders = {
  deprecation: `@${Date.parse(DEPRECATED) / 1000}`,
  sunset: 'Tue, 30 Jun 2026 12:00:00 GMT',
  link: '</graphql>; rel="successor-version", <https://docs.example.com/petstore/deprecations#pets>; rel="deprecation"',
};
const BEFORE_SUNSET = new Date('2026-03-01T00:00:00Z');

describe('GET /pets/{petId}', () => {
  let t: TestApp;
  let rest: RestClient;
  let now = BEFORE_SUNSET;
  beforeAll(async () => {
    t = await createTestApp({ env, clock: () => now });
    rest = await restClient(t);
  });
  afterAll(() => t.close());
  afterEach(() => {
    now = BEFORE_SUNSET;
  });

  it('answers the pet as the spec writes it, with the lifecycle headers', async () => {
    const category = await makeCategory(t);
    const pet = await makePet(t, { name: 'Rex', categoryId: category.id, status: 'sold' });
    const res = await rest.get(`/pets/${pet.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: Number(pet.id), name: 'Rex', categoryId: Number(category.id), status: 'sold' });
    expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-cache' });
    expect(res.headers.etag).toMatch(/^W\/"[\w-]+"$/);
  });

  it('writes ids above 2^53 with all their digits', async () => {
    const category = await t.db.prisma.category.create({ data: { id: 9007199254740995n, name: 'Big ids' } });
    await t.db.prisma.pet.create({
      data: { id: 9007199254740993n, name: 'Huge', categoryId: category.id, inventory: { create: { quantity: 0 } } },
    });
    const res = await rest.get('/pets/9007199254740993');
    expect(res.statusCode).toBe(200);
    // JSON.parse would round both to ...992 / ...996: read the raw text.
    expect(res.body).toBe('{"id":9007199254740993,"name":"Huge","categoryId":9007199254740995,"status":"available"}');
  });

  it('answers 304 with no body while If-None-Match holds the current ETag', async () => {
    const pet = await makePet(t);
    const first = await rest.get(`/pets/${pet.id}`);
    const etag = first.headers.etag as string;
    // Weak comparison: the tag with or without its W/ (a cache may send either).
    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
      const res = await rest.get(`/pets/${pet.id}`, { 'if-none-match': ifNoneMatch });
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers).toMatchObject({ ...lifecycleHeaders, etag, 'cache-control': 'no-cache' });
    }
    const other = await rest.get(`/pets/${pet.id}`, { 'if-none-match': '"something-else"' });
    expect(other.statusCode).toBe(200);
  });

  it('gives a changed pet a new ETag, so an old one gets the full answer', async () => {
    const pet = await makePet(t);
    const before = await rest.get(`/pets/${pet.id}`);
    await t.services.pets.setStatus(pet.id, 'sold');
    const after = await rest.get(`/pets/${pet.id}`, { 'if-none-match': before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(after.json().status).toBe('sold');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it.each([
    ['letters', 'abc'],
    ['a decimal fraction', '1.5'],
    ['a number with a sign and spaces', '+1'],
    ['20 digits', '12345678901234567890'],
    ['one above the int64 range', '9223372036854775808'],
    // `/pets/`: an answer of the path too (it had no lifecycle headers).
    ['nothing', ''],
  ])('rejects an id of %s with VALIDATION_FAILED naming petId', async (_label, id) => {
    const res = await rest.get(`/pets/${encodeURIComponent(id)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'petId: must be a 64-bit integer id in decimal digits',
      status: 400,
    });
    expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-store' });
  });

  it.each([
    ['a malformed percent-encoding', '%E0%A4%A'],
    ['a parameter longer than any id', '1'.repeat(200)],
  ])("answers the router's refusal of %s as every error of the path: 400, not stored", async (_label, id) => {
    const res = await rest.get(`/pets/${id}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-store' });
  });

  it('answers NOT_FOUND for an id no pet has, with the lifecycle headers and no caching', async () => {
    const res = await rest.get('/pets/424242424242');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'Pet 424242424242 not found', status: 404 });
    expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-store' });
    expect(res.headers.etag).toBeUndefined();
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'] as const)(
    'answers %s with 405, Allow and the lifecycle headers',
    async (method) => {
      const pet = await makePet(t);
      const res = await rest.request({ method, url: `/pets/${pet.id}` });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
      expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-store' });
    },
  );

  it('answers HEAD with the headers of GET and no body', async () => {
    const pet = await makePet(t);
    const res = await rest.request({ method: 'HEAD', url: `/pets/${pet.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-cache' });
  });

  it('answers a conditional HEAD holding the current ETag with 304, as GET does (not a 500)', async () => {
    const pet = await makePet(t);
    const first = await rest.get(`/pets/${pet.id}`);
    const etag = first.headers.etag as string;
    for (const ifNoneMatch of [etag, '*']) {
      const res = await rest.request({
        method: 'HEAD',
        url: `/pets/${pet.id}`,
        headers: { 'if-none-match': ifNoneMatch },
      });
      expect(res.statusCode).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers).toMatchObject({ ...lifecycleHeaders, etag, 'cache-control': 'no-cache' });
      expect(res.headers['content-type']).toBeUndefined();
      // A 304 may carry a Content-Length only when it is the 200's (RFC 9110, section 8.6).
      if (res.headers['content-length'] !== undefined) {
        expect(res.headers['content-length']).toBe(first.headers['content-length']);
      }
    }
  });

  it('still answers one second before the sunset', async () => {
    const pet = await makePet(t);
    now = new Date(Date.parse(SUNSET) - 1000);
    expect((await rest.get(`/pets/${pet.id}`)).statusCode).toBe(200);
  });

  it('answers 410 GONE from the sunset on, for every request on the path, with the lifecycle headers', async () => {
    const pet = await makePet(t);
    for (const at of [SUNSET, '2030-01-01T00:00:00Z']) {
      now = new Date(at);
      for (const [method, url] of [
        ['GET', `/pets/${pet.id}`],
        ['GET', '/pets/424242424242'],
        ['GET', '/pets/not-a-number'],
        ['POST', `/pets/${pet.id}`],
        // Percent-encoded, as the router decodes it: the same path, retired as well.
        ['GET', `/p%65ts/${pet.id}`],
        ['POST', `/%70ets/${pet.id}`],
      ] as const) {
        const res = await rest.request({ method, url });
        expect([url, res.statusCode]).toEqual([url, 410]);
        expect(res.json()).toEqual({ code: 'GONE', message: expect.stringContaining('/graphql'), status: 410 });
        expect(res.json().message).toContain(lifecycleHeaders.sunset);
        expect(res.headers).toMatchObject({ ...lifecycleHeaders, 'cache-control': 'no-store' });
      }
    }
  });

  it('leaves other paths alone after the sunset', async () => {
    now = new Date('2030-01-01T00:00:00Z');
    const res = await rest.get('/store/orders?limit=1', await ordersReader(t));
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });
});

describe('GET /pets/{petId} with the default dates', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock: () => new Date('2026-12-01T00:00:00Z') });
  });
  afterAll(() => t.close());

  it('announces the documented defaults: deprecated 2026-11-01, sunset 2027-07-01, docs at /docs', async () => {
    const res = await (await restClient(t)).get('/pets/1');
    expect(res.headers).toMatchObject({
      deprecation: '@1793491200',
      sunset: 'Thu, 01 Jul 2027 00:00:00 GMT',
      link: '</graphql>; rel="successor-version", </docs#/Pets/getPetById>; rel="deprecation"',
    });
  });
});
