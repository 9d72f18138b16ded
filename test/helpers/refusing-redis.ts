import net from 'node:net';

export interface RefusingRedis {
  port: number;
  close: () => void;
}

/**
 * A Redis that is connected and answers PING, yet refuses every command that writes, as a Redis at
 * its `maxmemory` with `noeviction` does (or a replica left at the address after a failover:
 * READONLY). Reads answer as an empty Redis would (PTTL: no such key). Speaks just enough RESP for
 * ioredis.
 */
export function refusingRedis(): Promise<RefusingRedis> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One command a `*n` array of `$len` bulk strings; answer each complete one.
      for (;;) {
        const lines = buffered.split('\r\n');
        if (!lines[0]?.startsWith('*')) return;
        const n = Number(lines[0].slice(1));
        if (lines.length < 1 + 2 * n + 1) return;
        const name = lines[2]!.toUpperCase();
        buffered = lines.slice(1 + 2 * n).join('\r\n');
        if (name === 'PING') socket.write('+PONG\r\n');
        else if (name === 'INFO') {
          const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
          socket.write(`$${info.length}\r\n${info}\r\n`);
        } else if (name === 'SELECT' || name === 'CLIENT' || name === 'QUIT') socket.write('+OK\r\n');
        else if (name === 'PTTL') socket.write(':-2\r\n');
        else socket.write("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () => {
          sockets.forEach((s) => s.destroy());
          server.close();
        },
      }),
    ),
  );
}
