/**
 * docs/websocket-abuse.md's "Close codes at a glance" tells a client developer what a graphql-ws
 * client does on each code the gateway closes with: it names every such code, and its last column
 * ("stops" or "reconnects") is what the `graphql-ws` client really does, checked here by closing a
 * real client's connection with each code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createClient, handleProtocols } from 'graphql-ws';
import WebSocket, { WebSocketServer } from 'ws';

const page = fs.readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'websocket-abuse.md'), 'utf8');

/** The table's rows: code and what it says a graphql-ws client does. */
function documented(): { code: number; client: string }[] {
  const section = page.slice(page.indexOf('## Close codes at a glance'));
  return [...section.matchAll(/^\| (\d{4}) \|[^|\n]*\| ([^|\n]*) \|$/gm)].map((m) => ({
    code: Number(m[1]),
    client: m[2]!.trim(),
  }));
}

/** Every code the gateway closes a graphql-ws connection with (src/subscriptions, graphql-ws's server, `ws`). */
const SENT = [1001, 1008, 1009, 1013, 4400, 4401, 4403, 4406, 4408, 4409, 4429, 4500];

/** Whether a graphql-ws client with retries reconnects after its connection is closed with `code`. */
async function reconnectsAfter(code: number): Promise<boolean> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => handleProtocols(p) });
  await new Promise((resolve) => server.once('listening', resolve));
  let connections = 0;
  server.on('connection', (socket) => {
    connections++;
    socket.on('message', () => socket.close(code, 'closed by the test'));
  });
  try {
    const { port } = server.address() as { port: number };
    let gaveUp!: () => void;
    const done = new Promise<void>((resolve) => (gaveUp = resolve));
    // One retry: a code it retries makes a second connection, closed alike, then it gives up.
    const client = createClient({
      url: `ws://127.0.0.1:${port}`,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 1,
      retryWait: async () => undefined,
      onNonLazyError: () => gaveUp(),
    });
    await done;
    await client.dispose();
    return connections > 1;
  } finally {
    server.close();
  }
}

describe('docs/websocket-abuse.md, close codes at a glance', () => {
  it('names every code the gateway closes with', () => {
    expect(documented().map((r) => r.code)).toEqual(SENT);
  });

  it.each(documented())("says what a graphql-ws client does on $code: '$client'", async ({ code, client }) => {
    expect(client).toMatch(/^(stops|reconnects)\b/);
    expect((await reconnectsAfter(code)) ? 'reconnects' : 'stops').toBe(client.split(/\W/)[0]);
  });
});
