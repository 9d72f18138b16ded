import type { AddressInfo } from 'node:net';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3 } from 'openapi-types';
import { STABILITY_LEVELS, STABILITY_TABLE } from '../../src/common/stability';
import { createApiKey, createTestApp, type TestApp } from '../helpers/test-app';
import { makePet } from '../helpers/factories';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider';

describe('GET /openapi.json', () => {
  let t: TestApp;
  let doc: OpenAPIV3.Document;
  // A provider that never answers: a token whose keys are not held yet is 503 UNAVAILABLE.
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await startIdentityProvider();
    await idp.setMode('hang');
    t = await createTestApp({
      env: {
        PETS_PATH_SUNSET_DATE: '2027-03-31T23:59:59Z',
        AUTH_JWT_ISSUER: idp.issuer,
        AUTH_JWT_AUDIENCE: idp.audience,
        AUTH_JWT_FETCH_TIMEOUT_MS: '200',
      },
    });
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  it('passes an OpenAPI 3.0 validator', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('is OpenAPI 3.0.3, version 1.0.0, with the tags Pets and Store, the Error schema and the bearer scheme', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.tags?.map((tag) => tag.name)).toEqual(['Pets', 'Store']);
    expect(doc.components?.schemas?.Error).toMatchObject({
      type: 'object',
      required: ['code', 'message', 'status'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' } },
    });
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents exactly the two legacy operations', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(['/pets/{petId}', '/store/orders']);
    expect(Object.keys(doc.paths['/pets/{petId}']!)).toEqual(['get']);
    expect(Object.keys(doc.paths['/store/orders']!)).toEqual(['get']);
  });

  it('marks GET /pets/{petId} deprecated with the configured sunset date', () => {
    const op = doc.paths['/pets/{petId}']!.get! as OpenAPIV3.OperationObject & Record<string, unknown>;
    expect(op.deprecated).toBe(true);
    expect(op.tags).toEqual(['Pets']);
    expect(op['x-sunset']).toBe('2027-03-31T23:59:59.000Z');
    expect(op.description).toContain('sunset Wed, 31 Mar 2027 23:59:59 GMT');
    expect(op.parameters).toContainEqual(
      expect.objectContaining({
        in: 'path',
        name: 'petId',
        required: true,
        schema: { type: 'integer', format: 'int64' },
      }),
    );
    expect(Object.keys(op.responses).sort()).toEqual([
      '200',
      '304',
      '400',
      '401',
      '404',
      '405',
      '408',
      '410',
      '429',
      '431',
      '500',
      '503',
    ]);
    expect(Object.keys((op.responses['200'] as OpenAPIV3.ResponseObject).headers!)).toEqual(
      expect.arrayContaining(['Deprecation', 'Sunset', 'Link', 'ETag', 'Cache-Control']),
    );
    expect((op.responses['410'] as OpenAPIV3.ResponseObject).content!['application/json']!.schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('calls the ETag of GET /pets/{petId} weak, as the answer sends it', async () => {
    const pet = await makePet(t);
    const res = await t.app.inject({ method: 'GET', url: `/pets/${pet.id}` });
    expect(res.headers.etag).toMatch(/^W\/"/);
    const op = doc.paths['/pets/{petId}']!.get!;
    const etag = (op.responses['200'] as OpenAPIV3.ResponseObject).headers!.ETag as OpenAPIV3.HeaderObject;
    expect(etag.description).toMatch(/^Weak entity tag/);
  });

  it('says GET /store/orders needs a bearer key with orders:read, and turns its try-it panel off', () => {
    const op = doc.paths['/store/orders']!.get! as OpenAPIV3.OperationObject & Record<string, unknown>;
    expect(op.tags).toEqual(['Store']);
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(op['x-required-scopes']).toEqual(['orders:read']);
    expect(op['x-readme']).toEqual({ 'explorer-enabled': false });
    expect(op.deprecated).toBeUndefined();
    expect((op.parameters as OpenAPIV3.ParameterObject[]).map((p) => [p.in, p.name])).toEqual([
      ['query', 'complete'],
      ['query', 'petId'],
      ['query', 'limit'],
      ['query', 'offset'],
    ]);
    expect(Object.keys((op.responses['200'] as OpenAPIV3.ResponseObject).headers!)).toEqual(
      expect.arrayContaining(['X-Total-Count', 'Link']),
    );
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403']));
    // A shopper's access token is a bearer credential of this operation too (docs/identity.md).
    const bearer = doc.components!.securitySchemes!.bearerAuth as OpenAPIV3.HttpSecurityScheme;
    expect(bearer.description).toContain('access token');
    expect((op.responses['401'] as OpenAPIV3.ResponseObject).description).toContain('access token');
    expect((op.responses['403'] as OpenAPIV3.ResponseObject).description).toContain('own orders');
  });

  /** The headers a client of these paths acts on: each one an answer carries must be in the document. */
  const DOCUMENTABLE = [
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'retry-after',
    'cache-control',
    'etag',
    'allow',
    'x-total-count',
    'link',
    'deprecation',
    'sunset',
    'www-authenticate',
  ];

  it('documents every answer the paths give: its status, and each header a client acts on', async () => {
    const pet = await makePet(t);
    const reader = await createApiKey(t, ['orders:read']);
    const writer = await createApiKey(t, ['orders:write']);
    const bad = { authorization: 'Bearer pk_not_a_key' };
    const unverifiable = { authorization: `Bearer ${await idp.sign()}` };
    const first = await t.app.inject({ method: 'GET', url: `/pets/${pet.id}` });
    const asks: [string, string, string, Record<string, string>][] = [
      ['/pets/{petId}', 'GET', `/pets/${pet.id}`, {}],
      ['/pets/{petId}', 'GET', `/pets/${pet.id}`, { 'if-none-match': String(first.headers.etag) }],
      ['/pets/{petId}', 'GET', '/pets/abc', {}],
      ['/pets/{petId}', 'GET', `/pets/${pet.id}`, bad],
      ['/pets/{petId}', 'GET', '/pets/424242424242', {}],
      ['/pets/{petId}', 'POST', `/pets/${pet.id}`, {}],
      ['/pets/{petId}', 'GET', `/pets/${pet.id}`, unverifiable],
      ['/store/orders', 'GET', '/store/orders', reader],
      ['/store/orders', 'GET', '/store/orders?limit=0', reader],
      ['/store/orders', 'GET', '/store/orders', {}],
      ['/store/orders', 'GET', '/store/orders', bad],
      ['/store/orders', 'GET', '/store/orders', writer],
      ['/store/orders', 'DELETE', '/store/orders', reader],
      ['/store/orders', 'GET', '/store/orders', unverifiable],
    ];
    const seen = new Set<number>();
    for (const [path, method, url, headers] of asks) {
      const res = await t.app.inject({ method: method as 'GET', url, headers });
      seen.add(res.statusCode);
      const documented = doc.paths[path]!.get!.responses[String(res.statusCode)] as
        OpenAPIV3.ResponseObject | undefined;
      expect([method, url, res.statusCode, documented !== undefined]).toEqual([method, url, res.statusCode, true]);
      const named = Object.keys(documented!.headers ?? {}).map((h) => h.toLowerCase());
      const undocumented = DOCUMENTABLE.filter((h) => res.headers[h] !== undefined && !named.includes(h));
      expect([method, url, res.statusCode, undocumented]).toEqual([method, url, res.statusCode, []]);
    }
    // The answers asked for are the ones meant (each status at least once).
    expect([...seen].sort()).toEqual([200, 304, 400, 401, 403, 404, 405, 503]);
  });

  it("documents the HTTP parser's refusals, each with the code it answers (a real socket: inject has no parser)", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    for (const path of ['/pets/1', '/store/orders']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}?x=${'a'.repeat(20_000)}`);
      expect(res.status).toBe(431);
      const { code } = (await res.json()) as { code: string };
      const template = path === '/pets/1' ? '/pets/{petId}' : path;
      const documented = doc.paths[template]!.get!.responses['431'] as OpenAPIV3.ResponseObject;
      expect(documented.description).toContain(`\`${code}\``);
      expect(doc.paths[template]!.get!.responses['408']).toBeDefined();
    }
  });

  it('labels every operation with its stability from the table', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item!).map(([method, op]) => ({
        key: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
        op,
      })),
    );
    expect(ops).toHaveLength(2);
    for (const { key, op } of ops) {
      const label = (op as Record<string, unknown>)['x-stability'];
      expect(STABILITY_LEVELS).toContain(label);
      expect(label).toBe(STABILITY_TABLE[key as keyof typeof STABILITY_TABLE]);
    }
  });
});
