/**
 * Raw TCP against a real server process: WebSocket upgrade requests written by hand, the kernel's
 * view of the server's sockets (/proc/net/tcp and tcp6), and a process's RSS (/proc/<pid>/status).
 * Linux only, as CI is.
 */
import fs from 'node:fs';
import net from 'node:net';

/**
 * A connection to `url` that has written `start` (part of a request) and waits: `closed` resolves with
 * everything the server sent once it closes the connection. Write the rest on `socket`.
 */
export async function halfSent(url: string, start: string): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise((r) => socket.once('connect', r));
  socket.write(start);
  const closed = new Promise<string>((resolve) => {
    let text = '';
    socket.setEncoding('utf8').on('data', (c: string) => (text += c));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(text));
  });
  return { socket, closed };
}

/** An upgrade request for GET /graphql (graphql-ws subprotocol), with extra header lines. */
export function upgradeRequest(host: string, headers: Record<string, string> = {}): string {
  const lines = [
    'GET /graphql HTTP/1.1',
    `Host: ${host}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Protocol: graphql-transport-ws',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return lines.join('\r\n') + '\r\n\r\n';
}

/**
 * Sends `request` on a new connection, reads until the status line has arrived, then half-closes
 * (sends FIN, as curl does when it exits) without waiting for the server: resolves with the status
 * code. The socket is released a moment later whatever the server does; a server that never closes
 * its side is left in CLOSE_WAIT, which is what `closeWaitCount` sees.
 */
export function sendAndHangUp(url: string, request: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let head = '';
    socket.setEncoding('latin1');
    socket.on('error', reject);
    socket.once('connect', () => socket.write(request));
    socket.on('data', (chunk: string) => {
      if (head.includes('\r\n')) return;
      head += chunk;
      if (!head.includes('\r\n')) return;
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0));
      // FIN, then drop our end: the kernel keeps FIN_WAIT_2 for the peer, not our process.
      socket.end();
      setTimeout(() => socket.destroy(), 50).unref();
    });
  });
}

/** TCP states in /proc/net/tcp (include/net/tcp_states.h). */
export const TCP_STATE = { ESTABLISHED: '01', CLOSE_WAIT: '08', LISTEN: '0A' } as const;

/** The inodes of the sockets whose local port is `port` in the given state (IPv4 and IPv6). */
export function socketInodes(port: number, state: string): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl, local_address, rem_address, st, tx:rx queue, tr:when, retrnsmt, uid, timeout, inode, ...
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (cols[1]!.endsWith(`:${hexPort}`) && cols[3] === state) inodes.push(cols[9]!);
    }
  }
  return inodes;
}

/** Sockets whose local port is `port` in the given state (IPv4 and IPv6). */
export const socketsInState = (port: number, state: string): number => socketInodes(port, state).length;

export const closeWaitCount = (port: number): number => socketsInState(port, TCP_STATE.CLOSE_WAIT);

/** Resident set size of a process, in MiB (VmRSS of /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Runs `task(i)` for i in [0, n) with at most `concurrency` at once; resolves with the results. */
export async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return results;
}
