/**
 * The subscribers of the subscriptions benchmark (bench/subscriptions.ts), in a process of their own
 * so that receiving their messages does not slow the load generator (or the other way round).
 * Driven over IPC: `start` connects N graphql-ws clients, each on `stockChanged` of one W4 pet (and
 * the probe pet for every `probeEvery`-th); `arrivals` returns when each probe event arrived
 * (absolute ms: performance.timeOrigin + performance.now(), comparable across processes).
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

const SUBSCRIPTION = `subscription($p: [ID!]) { stockChanged(petIds: $p) { petId quantity status } }`;
/** `--relations`: each event's item also reads its pet and the pet's category (one statement per event and document). */
const WITH_RELATIONS = `subscription($p: [ID!]) { stockChanged(petIds: $p) { petId quantity status pet { name category { name } } } }`;

interface Start {
  type: 'start';
  url: string;
  key: string;
  subscribers: number;
  w4Pets: number;
  probePet: string;
  probeEvery: number;
  relations: boolean;
}
type Message = Start | { type: 'arrivals'; ids: string[] } | { type: 'stop' };

const clients: Client[] = [];
const arrivals = new Map<string, number[]>();
let received = 0;
const now = () => performance.timeOrigin + performance.now();

async function start(m: Start): Promise<number> {
  let live = 0;
  await Promise.all(
    Array.from({ length: m.subscribers }, async (_, i) => {
      let acked!: () => void;
      const connected = new Promise<void>((r) => (acked = r));
      const client = createClient({
        url: m.url.replace('http', 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${m.key}` },
        lazy: false,
        retryAttempts: 0,
        on: { connected: () => acked() },
      });
      clients.push(client);
      await connected;
      const pets = [String(1 + (i % m.w4Pets)), ...(i % m.probeEvery === 0 ? [m.probePet] : [])];
      client.subscribe<{ stockChanged: { petId: string; quantity: number } }>(
        { query: m.relations ? WITH_RELATIONS : SUBSCRIPTION, variables: { p: pets } },
        {
          next: (r) => {
            received++;
            const event = r.data?.stockChanged;
            if (event?.petId !== m.probePet) return;
            const id = String(event.quantity);
            const list = arrivals.get(id);
            if (list) list.push(now());
            else arrivals.set(id, [now()]);
          },
          error: () => undefined,
          complete: () => undefined,
        },
      );
      live++;
    }),
  );
  return live;
}

process.on('message', (m: Message) => {
  void (async () => {
    if (m.type === 'start') process.send!({ type: 'started', connected: await start(m) });
    else if (m.type === 'arrivals') {
      process.send!({
        type: 'arrivals',
        received,
        arrivals: Object.fromEntries(m.ids.map((id) => [id, arrivals.get(id) ?? []])),
      });
    } else {
      await Promise.all(clients.map((c) => c.dispose()));
      process.exit(0);
    }
  })();
});
process.on('disconnect', () => process.exit(0));
