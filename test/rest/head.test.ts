/**
 * HEAD on the REST paths and /openapi.json over a real socket: a HEAD answer carries the headers of
 * the GET it stands for (RFC 9110, section 9.3.2), compressed or not, and no body.
 */
import http from 'node:http';
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { insertOrder, makePet } from '../helpers/factories';
import { ordersReader } from '../helpers/rest';

/** A raw HTTP exchange (no automatic decompression). */
function raw(url: string, method: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a HEAD must repeat of its GET: the coding, what the choice depends on, the length. */
const REPEATED = [
  'content-type',
  'content-encoding',
  'vary',
  'content-length',
  'etag',
  'cache-control',
  'x-total-count',
];

describe('HEAD on the REST paths', () => {
  let t: ListeningApp;
  let reader: Record<string, string>;
  let petId: bigint;
  beforeAll(async () => {
    t = await createListeningApp();
    reader = await ordersReader(t);
    petId = (await makePet(t)).id;
    // A page of orders well over the compression threshold.
    for (let i = 0; i < 40; i++) await insertOrder(t, { petId, shipDate: new Date(Date.UTC(2026, 0, 1 + i)) });
  });
  afterAll(() => t.close());

  it.each(['br', 'gzip', 'gzip, br;q=0', 'identity', ''])(
    'answers HEAD with the headers GET gets, compressed or not (Accept-Encoding %j)',
    async (encoding) => {
      const urls = ['/openapi.json', '/store/orders?limit=100', `/pets/${petId}`];
      for (const url of urls) {
        const headers = { ...reader, ...(encoding ? { 'accept-encoding': encoding } : {}) };
        const get = await raw(`${t.url}${url}`, 'GET', headers);
        const head = await raw(`${t.url}${url}`, 'HEAD', headers);
        expect({ url, status: head.status }).toEqual({ url, status: get.status });
        expect(head.body.length).toBe(0);
        const pick = (h: http.IncomingHttpHeaders) => Object.fromEntries(REPEATED.map((name) => [name, h[name]]));
        // A streamed GET (no Content-Length) may be told in full by its HEAD: the length is the GET's bytes.
        const expected = pick(get.headers);
        if (expected['content-length'] === undefined && head.headers['content-length'] !== undefined)
          expected['content-length'] = String(get.body.length);
        expect({ url, ...pick(head.headers) }).toEqual({ url, ...expected });
      }
      if (encoding === 'br' || encoding === 'gzip') {
        const orders = await raw(`${t.url}/store/orders?limit=100`, 'HEAD', { ...reader, 'accept-encoding': encoding });
        expect(orders.headers['content-encoding']).toBe(encoding);
      }
    },
  );
});
