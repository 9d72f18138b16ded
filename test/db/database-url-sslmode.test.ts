/**
 * A DATABASE_URL whose sslmode asks for TLS (`require`; node-postgres takes `prefer` the same way)
 * pointed at a server without TLS: waiting will not change that, so the start stops at once in one
 * line naming sslmode and the fix, instead of retrying for DB_STARTUP_RETRY_MS (30 s) and advising to
 * start the server. The server here answers the TLS request "N", as a PostgreSQL server with ssl = off.
 */
import net from 'node:net';
import { runScript } from '../helpers/server-process';

jest.setTimeout(120_000);

describe('a DATABASE_URL asking for TLS from a server without it', () => {
  let server: net.Server;
  let port: number;

  beforeAll(async () => {
    // SSLRequest (8 bytes) answered "N": no TLS here.
    server = net.createServer((socket) => {
      socket.once('data', () => socket.write('N'));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('stops the start at once, naming sslmode and the fix', async () => {
    const started = Date.now();
    const { code, stderr } = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/petstore?sslmode=require`,
    });
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    const line = stderr.split('\n').find((l) => l.includes('DATABASE_URL'));
    expect(line).toMatch(/cannot give the TLS its sslmode asks for: .*set sslmode=disable in DATABASE_URL/);
  });
});
