/**
 * The small edges a newcomer meets first: what `GET /` answers, the favicon, the security headers of a
 * page opened over plain http by IP address, and the hint of a 415.
 */
import { createTestApp, type TestApp } from '../helpers/test-app';

let t: TestApp;
beforeAll(async () => {
  // Behind a TLS-terminating proxy (TRUST_PROXY): a request is https only when X-Forwarded-Proto says so.
  t = await createTestApp({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /', () => {
  it('answers JSON with links to the GraphQL endpoint, the REST reference and the health checks', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers.vary).toMatch(/Accept/i);
      const links = (res.json() as { links: Record<string, { href: string }> }).links;
      expect(Object.values(links).map((l) => l.href)).toEqual(
        expect.arrayContaining(['/graphql', '/docs', '/healthz', '/readyz']),
      );
      // Each link leads somewhere that answers.
      for (const { href } of Object.values(links)) {
        const target = await t.app.inject({ method: 'GET', url: href, headers: { accept: 'text/html' } });
        expect({ href, status: target.statusCode < 400 }).toEqual({ href, status: true });
      }
    }
  });

  it('answers a browser with an HTML page of the same links', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const href of ['/graphql', '/docs', '/healthz']) expect(res.body).toContain(`href="${href}"`);
  });
});

describe('the favicon', () => {
  it('is served at /favicon.ico as an icon, and linked from the HTML pages', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.rawPayload.subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    const explorer = await t.app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(explorer.body).toContain('rel="icon" href="/favicon.ico"');
  });
});

describe('security headers over plain http', () => {
  it('leave out upgrade-insecure-requests over http (a page opened by IP would load nothing) and keep it over https', async () => {
    const http = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(http.headers['content-security-policy']).toContain("default-src 'self'");
    expect(http.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    // Through the proxy, an https request keeps helmet's whole policy.
    const https = await t.app.inject({
      method: 'GET',
      url: '/docs/',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(https.headers['content-security-policy']).toContain('upgrade-insecure-requests');
  });
});

describe('a POST body that is not JSON', () => {
  it.each([
    ['no content type', undefined, 'no Content-Type'],
    ['text/plain', 'text/plain', 'Content-Type "text/plain"'],
    ['a form', 'application/x-www-form-urlencoded', 'Content-Type "application/x-www-form-urlencoded"'],
  ])('with %s is 415 saying which type is accepted, in the error shape', async (_name, type, said) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: type ? { 'content-type': type } : {},
      payload: 'query={ pets { totalCount } }',
    });
    expect(res.statusCode).toBe(415);
    expect(res.headers['accept-post']).toBe('application/json');
    const [error] = (res.json() as { errors: { message: string; extensions: unknown }[] }).errors;
    expect(error!.extensions).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    expect(error!.message).toContain(said);
    expect(error!.message).toContain('Content-Type: application/json');
  });
});

describe('a file the page assets do not hold', () => {
  // The asset routes (`/explorer/*`, `/docs/static/*`) answer GET and HEAD: a file they do not hold
  // was answered 405 "GET is not allowed" with `Allow: GET, HEAD`, which contradicts itself.
  it.each([['/explorer/no-such-file.js'], ['/explorer/..%2f..%2fpackage.json'], ['/docs/static/no-such-file.js']])(
    'GET %s is 404 NOT_FOUND, and another method on it still 405',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NOT_FOUND', status: 404 });
      expect(res.headers.allow).toBeUndefined();
      const put = await t.app.inject({ method: 'PUT', url });
      expect(put.statusCode).toBe(405);
      expect(put.headers.allow).toBe('GET, HEAD');
    },
  );
});
