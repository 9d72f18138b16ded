/**
 * `npm run bench:pg-wakeups [-- --sockets N] [--rate R] [--ms MS] [--rounds N]`: what a one-row lookup
 * costs PostgreSQL per request from the gateway (T3) and from PostGraphile (T2) at one offered rate,
 * and how that time is spent: how often a backend is woken (the scheduler's timeslices,
 * /proc/<pid>/schedstat's third field, and the voluntary context switches of /proc/<pid>/status),
 * how many backends take part, and how many statements the server sends per request.
 *
 * Why: the lookups' PostgreSQL CPU per request in WG differs between the two servers while their
 * statement costs the same per execution (round 22 of docs/benchmarks.md); this says whether the
 * difference is in the wake-ups. The load is an open loop (request i leaves at i / rate, whatever
 * the answers) over at most `--sockets` keep-alive connections, the same for both servers; rounds
 * alternate which server goes first. Each round's figures are printed (the spread is the noise).
 *
 * Environment: BENCH_PG_URL (admin URL, default postgresql://postgres@127.0.0.1:5432/test);
 * `--lookup pet|category|order` (default category); `--id N`: every request asks the row N, as each of
 * WG's generated documents does (default: the id turns over the seeded rows). Each round also says how
 * many backends started during it (a pool that opened a connection: its start-up is PostgreSQL CPU
 * counted in the round). Linux only (/proc), PostgreSQL on this machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { targetNode } from './node';
import { ensurePeer, PEER_PG_MODULE } from './peer';
import { log } from './records';
import { createApiKey, DATA, seedPostgres } from './seed';
import { startTarget, type Target } from './targets';

/** The same lookup in each schema, by an id from 1 to `ids` (the seeded rows). */
const LOOKUPS = {
  pet: {
    t3: 'query($id: ID!) { pet(id: $id) { id name } }',
    t2: 'query($id: BigInt!) { petByRowId(rowId: $id) { rowId name } }',
    ids: DATA.pets,
  },
  category: {
    t3: 'query($id: ID!) { category(id: $id) { id name } }',
    t2: 'query($id: BigInt!) { categoryByRowId(rowId: $id) { rowId name } }',
    ids: DATA.categories,
  },
  order: {
    t3: 'query($id: ID!) { order(id: $id) { id quantity shipDate } }',
    t2: 'query($id: BigInt!) { orderByRowId(rowId: $id) { rowId quantity shipDate } }',
    ids: DATA.orders,
  },
};

interface Sched {
  ns: number;
  slices: number;
  voluntary: number;
}

function sched(pid: number): Sched | null {
  try {
    const [ns, , slices] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return { ns: ns!, slices: slices!, voluntary: Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1]) };
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sockets: { type: 'string', default: '2' },
      rate: { type: 'string', default: '1200' },
      ms: { type: 'string', default: '4000' },
      rounds: { type: 'string', default: '6' },
      lookup: { type: 'string', default: 'category' },
      id: { type: 'string' },
    },
    strict: true,
  });
  const lookup = LOOKUPS[values.lookup as keyof typeof LOOKUPS];
  if (!lookup) throw new Error(`--lookup: one of ${Object.keys(LOOKUPS).join(', ')}`);
  const [sockets, rate, ms, rounds] = [values.sockets, values.rate, values.ms, values.rounds].map(Number) as number[];
  const node = targetNode('24', log);
  ensurePeer(log);
  const data = await seedPostgres(process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/test');
  const admin = new Client({ connectionString: data.url });
  const targets: Target[] = [];
  try {
    await admin.connect();
    const key = createApiKey({ DATABASE_URL: data.url });
    const env = { DATABASE_URL: data.url };
    const t3 = await startTarget(
      'T3',
      'postgres',
      env,
      { RATE_LIMIT_MAX: '10000000', RATE_LIMIT_WINDOW_MS: '1000' },
      node,
    );
    targets.push(t3);
    const t2 = await startTarget(
      'T2',
      'postgres',
      env,
      { BENCH_PG_MODULE: PEER_PG_MODULE, GRAPHILE_ENV: 'production' },
      node,
    );
    targets.push(t2);
    const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    const sides = [
      { id: 'T3', target: t3, query: lookup.t3, headers: key.key ? { authorization: `Bearer ${key.key}` } : {} },
      { id: 'T2', target: t2, query: lookup.t2, headers: {} },
    ];
    const send = (side: (typeof sides)[number], i: number) =>
      new Promise<void>((resolve, reject) => {
        const id = values.id ?? String(1 + (i % lookup.ids));
        const body = JSON.stringify({ query: side.query, variables: { id } });
        const url = new URL(side.target.url);
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path: '/graphql',
            method: 'POST',
            headers: { ...side.headers, 'content-type': 'application/json' },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => (text += c));
            res.on('end', () =>
              res.statusCode === 200 && !text.includes('"errors"')
                ? resolve()
                : reject(new Error(`${side.id}: HTTP ${res.statusCode} ${text.slice(0, 200)}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const backends = async () => {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const m = new Map<number, Sched>();
      for (const { pid } of rows) {
        const s = sched(pid);
        if (s) m.set(pid, s);
      }
      return m;
    };
    for (const side of sides)
      for (let i = 0; i < 3000; i += 10) await Promise.all(Array.from({ length: 10 }, (_, k) => send(side, i + k)));
    log(
      `--lookup ${values.lookup}: ${rate} req/s offered for ${ms} ms over at most ${sockets} sockets, ${rounds} rounds`,
    );
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const before = await backends();
        const stats = await side.target.stats();
        const total = Math.round((rate * ms) / 1000);
        const started = performance.now();
        const pending: Promise<void>[] = [];
        for (let i = 0; i < total;) {
          const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
          for (; i < due; i++) pending.push(send(side, i));
          if (i < total) await new Promise((r) => setTimeout(r, 1));
        }
        await Promise.all(pending);
        const after = await backends();
        const stats2 = await side.target.stats();
        let ns = 0;
        let slices = 0;
        let voluntary = 0;
        let active = 0;
        let newBackends = 0;
        for (const [pid, a] of after) {
          if (!before.has(pid)) newBackends++;
          const b = before.get(pid) ?? { ns: 0, slices: 0, voluntary: 0 };
          if (a.slices - b.slices > total / 100) active++;
          ns += a.ns - b.ns;
          slices += a.slices - b.slices;
          voluntary += a.voluntary - b.voluntary;
        }
        log(
          `round ${round + 1} ${side.id}: PostgreSQL ${(ns / 1e3 / total).toFixed(1)} µs/request, ` +
            `${(slices / total).toFixed(2)} timeslices/request (${(voluntary / total).toFixed(2)} voluntary switches), ` +
            `${active} backends busy (${newBackends} started), ${((stats2.statements - stats.statements) / total).toFixed(2)} statements/request, ` +
            `server ${((stats2.cpuMicros - stats.cpuMicros) / total).toFixed(0)} µs/request`,
        );
      }
    }
    agent.destroy();
  } finally {
    await admin.end().catch(() => undefined);
    for (const t of targets) await t.stop();
    await data.drop();
  }
}

main().catch((e: Error) => {
  console.error(e);
  process.exit(1);
});
