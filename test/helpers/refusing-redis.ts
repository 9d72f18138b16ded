import net from 'node:net';

export interface FakeRedis {
  port: number;
  close: () => void;
}

/**
 * A Redis written out, speaking just enough RESP for ioredis: each complete command (`*n` array of
 * `$len` bulk strings) goes to `answer` (its name upper-cased, then its arguments), which returns the
 * RESP reply, or undefined for what an empty Redis answers (PING, INFO, SELECT, CLIENT, QUIT; PTTL:
 * no such key; anything else: OK).
 */
export function fakeRedis(answer: (command: string[]) => string | undefined = () => undefined): Promise<FakeRedis> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const lines = buffered.split('\r\n');
        if (!lines[0]?.startsWith('*')) return;
        const n = Number(lines[0].slice(1));
        if (lines.length < 1 + 2 * n + 1) return;
        const command = Array.from({ length: n }, (_, k) => lines[2 + 2 * k]!);
        command[0] = command[0]!.toUpperCase();
        buffered = lines.slice(1 + 2 * n).join('\r\n');
        socket.write(answer(command) ?? emptyRedis(command[0]!));
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

function emptyRedis(name: string): string {
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'INFO') {
    const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
    return `$${info.length}\r\n${info}\r\n`;
  }
  if (name === 'PTTL') return ':-2\r\n';
  return '+OK\r\n';
}

/**
 * A Redis that is connected and answers PING, yet refuses every command that writes, as a Redis at
 * its `maxmemory` with `noeviction` does (or a replica left at the address after a failover:
 * READONLY). Reads answer as an empty Redis would (PTTL: no such key).
 */
export function refusingRedis(): Promise<FakeRedis> {
  return fakeRedis(([name]) =>
    ['PING', 'INFO', 'SELECT', 'CLIENT', 'QUIT', 'PTTL'].includes(name!)
      ? undefined
      : "-OOM command not allowed when used memory > 'maxmemory'.\r\n",
  );
}
