/**
 * Details of the GraphQL-over-HTTP specification (graphql.github.io/graphql-over-http) that
 * graphql-http's audits (test/clients/graphql-clients.test.ts) do not ask, sent through the app's
 * HTTP interface.
 */
import { createTestApp, type TestApp } from '../helpers/test-app';

const ACCEPT = { accept: 'application/graphql-response+json' };

describe('GraphQL over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (params: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/graphql?${new URLSearchParams(params)}`, headers: ACCEPT });

  describe('GET with an empty operationName', () => {
    // "Setting the value of the operationName parameter to the empty string is equivalent to
    // omitting the operationName parameter" (GET section of the specification).
    it('runs the only operation of the document, as without the parameter', async () => {
      const query = 'query Named { __typename }';
      const omitted = await get({ query });
      const empty = await get({ query, operationName: '' });
      expect(omitted.statusCode).toBe(200);
      expect({ status: empty.statusCode, body: empty.json() }).toEqual({
        status: 200,
        body: { data: { __typename: 'Query' } },
      });
    });

    it('still asks for a name when the document has several operations', async () => {
      const query = 'query A { __typename } query B { __typename }';
      const omitted = await get({ query });
      const empty = await get({ query, operationName: '' });
      expect(omitted.statusCode).toBe(400);
      expect({ status: empty.statusCode, body: empty.json() }).toEqual({
        status: omitted.statusCode,
        body: omitted.json(),
      });
    });

    it('still refuses a mutation over GET with 405', async () => {
      const empty = await get({ query: 'mutation { deletePet(id: 1) { id } }', operationName: '' });
      expect(empty.statusCode).toBe(405);
      expect(empty.json().errors[0].extensions).toEqual({ code: 'METHOD_NOT_ALLOWED', status: 405 });
    });
  });

  it('answers a GET with a Content-Type other than JSON 415, and says 415 in extensions too', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/graphql?${new URLSearchParams({ query: '{ __typename }' })}`,
      headers: { ...ACCEPT, 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().errors[0].extensions).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });

  describe('the encoding of a GET query string', () => {
    // Percent-encoded bytes that are not UTF-8 were read as U+FFFD (a malformed escape as itself)
    // and the query ran on what they became; now they are refused as a POST body's are.
    const search = (text: string) =>
      t.app.inject({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent('{ pets(filter: { nameContains: "Caf')}${text}${encodeURIComponent('" }) { totalCount } }')}`,
        headers: ACCEPT,
      });

    it.each([
      ['a Latin-1 byte', '%E9'],
      ['a byte that starts no UTF-8 character', '%FF'],
      ['an encoded surrogate', '%ED%A0%80'],
      ['a malformed escape', '%ZZ'],
    ])('refuses %s with 400 BAD_REQUEST, running nothing', async (_label, text) => {
      const res = await search(text);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        errors: [{ message: expect.stringContaining('UTF-8'), extensions: { code: 'BAD_REQUEST', status: 400 } }],
      });
    });

    it('reads UTF-8 as before', async () => {
      const res = await search(encodeURIComponent('é 🐹'));
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 200,
        body: { data: { pets: { totalCount: 0 } } },
      });
    });
  });

  describe('the encoding of a POST body', () => {
    // "A server MUST support POST requests encoded with the application/json media type ... encoded
    // with UTF-8": bytes that are not UTF-8 are not read as something else.
    const create = (name: Buffer, contentType: string) =>
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': contentType, ...ACCEPT, ...t.admin },
        payload: Buffer.concat([
          Buffer.from('{"query":"mutation { createCategory(input: { name: \\"'),
          name,
          Buffer.from('\\" }) { name } }"}'),
        ]),
      });
    const latin1 = (text: string) => Buffer.from(text, 'latin1');
    const utf8 = (text: string) => Buffer.from(text, 'utf8');

    it('refuses bytes that are not UTF-8 with 400, and writes nothing', async () => {
      const res = await create(latin1('Café crème'), 'application/json');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        errors: [{ message: expect.stringContaining('UTF-8'), extensions: { code: 'BAD_REQUEST', status: 400 } }],
      });
      expect(await t.db.prisma.category.count({ where: { name: { startsWith: 'Caf' } } })).toBe(0);
    });

    it('refuses a charset other than UTF-8 with 415, naming it, where the bytes would read otherwise', async () => {
      const res = await create(latin1('Crème'), 'application/json; charset=iso-8859-1');
      expect(res.statusCode).toBe(415);
      expect(res.json().errors[0]).toEqual({
        message: expect.stringContaining('iso-8859-1'),
        extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
      });
      expect(await t.db.prisma.category.count({ where: { name: { startsWith: 'Cr' } } })).toBe(0);
    });

    it('serves plain ASCII whatever charset it names, as every charset reads it the same', async () => {
      const res = await create(latin1('Creme'), 'application/json; charset=ISO-8859-1');
      expect({ status: res.statusCode, body: res.json() }).toEqual({
        status: 200,
        body: { data: { createCategory: { name: 'Creme' } } },
      });
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"'])(
      'reads UTF-8 as before (%s)',
      async (contentType) => {
        const name = `Thé ${contentType.length} 🐹`;
        const res = await create(utf8(name), contentType);
        expect({ status: res.statusCode, body: res.json() }).toEqual({
          status: 200,
          body: { data: { createCategory: { name } } },
        });
      },
    );
  });
});
