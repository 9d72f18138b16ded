/**
 * REST through HTTP (Fastify inject), with every answer checked against the app's own OpenAPI
 * document (GET /openapi.json, itself checked by a real OpenAPI 3.0 validator first): a documented
 * status for the operation, a body that matches that status's schema (or no body where none is
 * documented), documented headers that match their schemas. Answers outside any operation (unknown
 * paths, other methods) must be the document's Error schema.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import { createApiKey, type TestApp } from './test-app';

const readers = new WeakMap<TestApp, Promise<Record<string, string>>>();

/**
 * Headers for every GET /store/orders request of the tests: the credential of a caller holding the
 * `orders:read` scope (one key per test app, created on first use).
 */
export function ordersReader(t: TestApp): Promise<Record<string, string>> {
  let headers = readers.get(t);
  if (!headers) {
    headers = createApiKey(t, ['orders:read'], 'orders reader');
    readers.set(t, headers);
  }
  return headers;
}

export interface RestClient {
  document: OpenAPIV3.Document;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  request(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>;
}

function newAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: coerce });
  addFormats(ajv);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  // JSON.parse rounds above 2^53; the digits themselves are checked by the tests that need them.
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  return ajv;
}

const templateRegExp = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);

export async function restClient(t: TestApp): Promise<RestClient> {
  const raw = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenAPIV3.Document;
  // validate() throws on any violation of the OpenAPI 3.0 schema or its rules; dereference() inlines $refs.
  await SwaggerParser.validate(structuredClone(raw) as never);
  const document = (await SwaggerParser.dereference(structuredClone(raw) as never)) as OpenAPIV3.Document;
  const bodies = newAjv(false);
  const headers = newAjv(true);
  const compiled = new Map<object, ValidateFunction>();
  const compile = (ajv: Ajv, schema: object) => {
    let fn = compiled.get(schema);
    if (!fn) compiled.set(schema, (fn = ajv.compile(schema)));
    return fn;
  };
  const errorSchema = document.components!.schemas!.Error as object;

  function check(method: string, url: string, res: LightMyRequestResponse): void {
    const path = url.split('?')[0]!;
    const where = `${method} ${url} -> ${res.statusCode}`;
    const template = Object.keys(document.paths).find((p) => templateRegExp(p).test(path));
    const verb = (method === 'HEAD' ? 'get' : method.toLowerCase()) as OpenAPIV3.HttpMethods;
    const operation = template ? document.paths[template]![verb] : undefined;
    if (!operation) {
      // Outside any documented operation: the Error object, always.
      const body = res.json();
      if (!compile(bodies, errorSchema)(body)) throw new Error(`${where}: not an Error object: ${res.body}`);
      return;
    }
    const response = (operation.responses[String(res.statusCode)] ?? operation.responses.default) as
      OpenAPIV3.ResponseObject | undefined;
    if (!response) throw new Error(`${where}: status not documented for ${method} ${template}`);
    const media = response.content?.['application/json'];
    if (media?.schema && method !== 'HEAD') {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const validate = compile(bodies, media.schema);
      if (!validate(res.json())) {
        throw new Error(`${where}: body does not match the document: ${JSON.stringify(validate.errors)}\n${res.body}`);
      }
    } else if (res.body !== '') {
      throw new Error(`${where}: no body documented, got ${res.body}`);
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = res.headers[name.toLowerCase()];
      const schema = (header as OpenAPIV3.HeaderObject).schema;
      if (value === undefined || !schema) continue;
      if (!compile(headers, schema as object)(value))
        throw new Error(`${where}: header ${name}: ${value} does not match the document`);
    }
  }

  const request: RestClient['request'] = async (options) => {
    const res = await t.app.inject(options);
    check((options.method ?? 'GET').toUpperCase(), options.url, res);
    return res;
  };
  return { document, request, get: (url, headers = {}) => request({ method: 'GET', url, headers }) };
}
