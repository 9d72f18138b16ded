import { createTestApp, type TestApp } from '../helpers/test-app';
import { restClient, type RestClient } from '../helpers/rest';

describe('HTTP errors outside the routes', () => {
  let t: TestApp;
  let rest: RestClient;
  beforeAll(async () => {
    t = await createTestApp();
    rest = await restClient(t);
  });
  afterAll(() => t.close());

  // '/graphql/' and '/graphqlx' are not the GraphQL endpoint: the Error object, not a GraphQL error body.
  it.each(['/nope', '/pets', '/pets/1/orders', '/store', '/store/orders/1', '/graphql/', '/graphqlx'])(
    'answers an unknown path (%s) 404 NOT_FOUND',
    async (url) => {
      const res = await rest.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NOT_FOUND', message: `No route for GET ${url}`, status: 404 });
      expect(res.headers.allow).toBeUndefined();
    },
  );

  it('keeps the lifecycle headers off paths that only look like the deprecated one', async () => {
    const res = await rest.get('/pets/1/orders');
    expect(res.headers.deprecation).toBeUndefined();
  });

  it.each([
    ['DELETE', '/healthz', 'GET, HEAD'],
    ['POST', '/openapi.json', 'GET, HEAD'],
    ['PUT', '/store/orders', 'GET, HEAD'],
    // Percent-encoded: the path the router decodes it to.
    ['PUT', '/store/%6frders', 'GET, HEAD'],
  ] as const)('answers %s %s with 405 METHOD_NOT_ALLOWED and Allow: %s', async (method, url, allow) => {
    const res = await rest.request({ method, url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.json()).toEqual({
      code: 'METHOD_NOT_ALLOWED',
      message: `${method} is not allowed on ${url}`,
      status: 405,
    });
  });

  // The body of a request no route takes was read first: invalid JSON answered 400 BAD_REQUEST, and a
  // body over BODY_LIMIT_BYTES 413, neither with Allow; an unknown path's the same instead of 404.
  const invalidJson = '{"name":';
  const tooLarge = JSON.stringify({ name: 'x'.repeat(1_100_000) });
  it.each([
    ['invalid JSON', '/pets/1', 405, invalidJson],
    ['a body over the limit', '/pets/1', 405, tooLarge],
    ['invalid JSON', '/store/orders', 405, invalidJson],
    ['invalid JSON', '/nope', 404, invalidJson],
    ['a body over the limit', '/nope', 404, tooLarge],
  ] as const)(
    'answers a POST of %s to %s by its path and method (%i), not by its body',
    async (_l, url, status, body) => {
      const res = await rest.request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ code: status === 405 ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND', status });
      if (status === 405) expect(res.headers.allow).toBe('GET, HEAD');
      // Nor is the body read after the answer: the connection closes.
      expect(res.headers.connection).toBe('close');
    },
  );

  it('answers a wrong method on /graphql with 405 in the GraphQL error shape', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/graphql' });
    expect(res.statusCode).toBe(405);
    // What /graphql serves, the same whichever method was refused (HEAD's 405 said GET, POST).
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json()).toEqual({
      errors: [
        { message: 'DELETE is not allowed on /graphql', extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } },
      ],
    });
    for (const method of ['HEAD', 'PUT', 'OPTIONS'] as const) {
      const other = await t.app.inject({ method, url: '/graphql' });
      expect([method, other.statusCode, other.headers.allow]).toEqual([method, 405, 'GET, POST']);
    }
  });

  it('answers a wrong method on a percent-encoded /graphql (the router decodes it) in the GraphQL error shape', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/gr%61phql' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json()).toEqual({
      errors: [
        { message: 'PUT is not allowed on /gr%61phql', extensions: { code: 'METHOD_NOT_ALLOWED', status: 405 } },
      ],
    });
  });
});
