/**
 * A TCP proxy a test controls, to take a dependency (PostgreSQL, Redis) away from a server process
 * and give it back: `refuse()` closes every connection and refuses new ones (the service is down),
 * `blackhole()` keeps connections open but forwards nothing either way (the service stopped
 * answering: a hung host, a dropped network), `restore()` forwards again. `retarget()` sends new
 * connections elsewhere (a load balancer moving to another instance); open ones stay where they are.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  refuse(): Promise<void>;
  blackhole(): void;
  restore(): Promise<void>;
  retarget(host: string, port: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: 'forward' | 'blackhole' | 'refuse' = 'forward';
  const target = { host: targetHost, port: targetPort };
  const pairs = new Set<[net.Socket, net.Socket]>();
  // Half-open allowed on both sides, so that a FIN is passed on only while forwarding: in a black
  // hole a client's goodbye is never answered, as by a frozen server whose kernel still ACKs.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port: target.port, host: target.host, allowHalfOpen: true });
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => {
      if (mode === 'forward') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'forward') client.write(chunk);
    });
    client.on('end', () => {
      if (mode === 'forward') upstream.end();
    });
    upstream.on('end', () => {
      if (mode === 'forward') client.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const dropAll = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async refuse() {
      mode = 'refuse';
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      dropAll();
      await closed;
    },
    blackhole() {
      mode = 'blackhole';
    },
    retarget(host, port) {
      target.host = host;
      target.port = port;
    },
    async restore() {
      if (mode === 'blackhole') {
        // Connections that lost bytes are of no use now: drop them, as a network partition would.
        dropAll();
      } else if (mode === 'refuse') {
        await listen();
      }
      mode = 'forward';
    },
    async close() {
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
