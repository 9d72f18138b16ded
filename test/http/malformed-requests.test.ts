/**
 * Requests no HTTP client library would send, over raw sockets to a real process
 * (NODE_ENV=production): a malformed or missing `Host`, an over-long path parameter, a URL that does
 * not decode. Each is a client mistake: a 4xx in the Error shape with the security headers every
 * answer carries, never 500 INTERNAL, and no stack in the log.
 */
import net from 'node:net';
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';

jest.setTimeout(120_000);

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `raw` as is and reads the whole answer (the request asks to close the connection). */
function send(url: string, raw: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

const request = (method: string, path: string, hostLine: string | null, body?: string) =>
  [
    `${method} ${path} HTTP/1.1`,
    ...(hostLine === null ? [] : [`Host: ${hostLine}`]),
    'Connection: close',
    ...(body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]),
    '',
    body ?? '',
  ].join('\r\n');

/**
 * The deprecated path's lifecycle headers (the documented defaults, docs/rest.md), which are on every
 * answer of the path: also on these, refused before the path's own hooks run.
 */
const LIFECYCLE = {
  deprecation: '@1793491200',
  sunset: 'Thu, 01 Jul 2027 00:00:00 GMT',
  link: '</graphql>; rel="successor-version", </docs#/Pets/getPetById>; rel="deprecation"',
};

describe('malformed requests from raw sockets (production)', () => {
  let gateway: GatewayFixture;
  beforeAll(async () => {
    gateway = await startGateway({ NODE_ENV: 'production' });
  });
  afterAll(async () => gateway?.dispose());

  it.each([['['], ['a b'], ['%'], [''], ['a/b'], ['x@y']])(
    'answers Host: %j with 400 BAD_REQUEST in the Error shape, on /graphql and REST alike',
    async (host) => {
      const graphql = await send(gateway.server.url, request('POST', '/graphql', host, '{"query":"{ __typename }"}'));
      expect(graphql.status).toBe(400);
      expect(JSON.parse(graphql.body).errors[0].extensions).toEqual({ code: 'BAD_REQUEST', status: 400 });
      expect(graphql.headers['x-content-type-options']).toBe('nosniff');
      const rest = await send(gateway.server.url, request('GET', '/pets/1', host));
      expect(rest.status).toBe(400);
      expect(JSON.parse(rest.body)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
      expect(rest.headers).toMatchObject(LIFECYCLE);
    },
  );

  it('answers a request without Host with 400 too, and serves well-formed hosts as before', async () => {
    // HTTP/1.1 without Host: Node's parser answered it itself (a bare 400, no body, no header).
    for (const [method, path] of [
      ['GET', '/pets/1'],
      ['POST', '/graphql'],
    ]) {
      const answer = await send(
        gateway.server.url,
        request(method!, path!, null, method === 'POST' ? '{"query":"{ __typename }"}' : undefined),
      );
      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.body);
      expect(path === '/graphql' ? body.errors[0].extensions : body).toMatchObject({
        code: 'BAD_REQUEST',
        status: 400,
      });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-request-id']).toBeDefined();
    }
    for (const host of ['localhost', 'localhost:4000', '127.0.0.1:80', '[::1]:4000', 'api.example.com']) {
      const answer = await send(gateway.server.url, request('POST', '/graphql', host, '{"query":"{ __typename }"}'));
      expect([host, answer.status]).toEqual([host, 200]);
    }
  });

  it('answers a request with two Host lines with 400 (RFC 9112: one Host, no more), alike or not', async () => {
    // Node keeps the first and drops the others: a proxy that read the last one and this server
    // disagreed on which host was asked, and the request was served.
    for (const second of ['evil.example', 'localhost']) {
      for (const [method, path] of [
        ['GET', '/pets/1'],
        ['POST', '/graphql'],
      ]) {
        const raw = request(method!, path!, 'localhost', method === 'POST' ? '{"query":"{ __typename }"}' : undefined);
        const answer = await send(gateway.server.url, raw.replace('\r\n', `\r\nhost: ${second}\r\n`));
        expect([method, path, second, answer.status]).toEqual([method, path, second, 400]);
        const body = JSON.parse(answer.body);
        expect(path === '/graphql' ? body.errors[0].extensions : body).toMatchObject({
          code: 'BAD_REQUEST',
          status: 400,
        });
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
      }
    }
  });

  it('answers an over-long path parameter in the Error shape with the security headers', async () => {
    const answer = await send(gateway.server.url, request('GET', `/pets/${'1'.repeat(200)}`, 'localhost'));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-security-policy']).toBeDefined();
    expect(answer.headers['x-request-id']).toBeDefined();
    expect(answer.headers).toMatchObject(LIFECYCLE);
  });

  it("answers a URL that does not decode in the Error shape, with the path's lifecycle headers", async () => {
    const answer = await send(gateway.server.url, request('GET', '/pets/%E0%A4%A', 'localhost'));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers).toMatchObject(LIFECYCLE);
  });

  it.each([
    [
      'headers over the size limit (a 20 KB URL)',
      request('GET', `/pets/1?x=${'a'.repeat(20_000)}`, 'localhost'),
      431,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'Content-Length beside Transfer-Encoding',
      'POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'BAD_REQUEST',
    ],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, 'BAD_REQUEST'],
  ])(
    'answers what the HTTP parser refuses (%s) in the Error shape with the API headers',
    async (_name, raw, status, code) => {
      // Fastify's default wrote its own body ({"error":...,"statusCode":...}) and no header.
      const answer = await send(gateway.server.url, raw);
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({ code, message: expect.any(String), status });
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(answer.headers['x-request-id']).toBeDefined();
    },
  );

  it('logged no error (no stack) for any of them', () => {
    const errors = gateway.server.output.filter((line) => /"level":50/.test(line));
    expect(errors).toEqual([]);
  });
});
