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
});
