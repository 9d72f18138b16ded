#!/usr/bin/env node
/* global URL, fetch, performance, Buffer, setImmediate */
/**
 * Issue 23's before/after figures for items 1-4, against a built gateway (this checkout's, or
 * another's with --entry), on a fresh PostgreSQL database, NODE_ENV=production and default limits
 * except where a figure needs otherwise (said below). Not a test: it prints what it measured.
 *
 *   node tools/ws-abuse-measure.mjs [--entry /path/to/dist/src/main.js] [--items 1,2,3,4] [--flood-seconds 30] [--database postgresql://postgres@127.0.0.1:5432/test]
 *
 * 1. CLOSE_WAIT sockets of the server's port 3 s after 2,000 refused upgrades (bad key, then 429),
 *    each client hanging up after the status line, as curl does.
 * 2. Peak RSS growth during a flood of graphql-ws pings from one client that never reads, and
 *    whether the server closed it; RATE_LIMIT_MAX high and keep-alive off, so that only the byte
 *    bound can stop it (an unanswered keep-alive ping cuts a non-reading client after twice
 *    SUBSCRIPTION_KEEPALIVE_MS anyway). --flood-seconds (30): a loaded machine takes that long to
 *    fill the kernel's socket buffers (several MiB on loopback) before the server's own. Stopped
 *    early past +1 GiB.
 * 3. Another client's median latency of `{ __typename }` over HTTP (with a key) alone, and while one
 *    anonymous connection floods subscribe+complete pairs for 10 s (reconnecting when closed).
 * 4. The size of /metrics after 100 anonymous queries named with 100,000 characters each.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    entry: { type: 'string', default: path.join(root, 'dist/src/main.js') },
    database: { type: 'string', default: 'postgresql://postgres@127.0.0.1:5432/test' },
    items: { type: 'string', default: '1,2,3,4' },
    'flood-seconds': { type: 'string', default: '30' },
  },
});
const entry = path.resolve(args.entry);
const items = new Set(args.items.split(','));
const floodMs = Number(args['flood-seconds']) * 1000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function freshDatabase() {
  const base = new URL(args.database);
  const name = `ws_abuse_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function startServer(env) {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logBytes = 0;
  child.stdout.on('data', (c) => (logBytes += c.length));
  child.stderr.on('data', (c) => (logBytes += c.length));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not yet */
    }
    if (i > 600) throw new Error('server did not start');
    await sleep(100);
  }
  return {
    url,
    port,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    pid: child.pid,
    logBytes: () => logBytes,
    stop: async () => {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

function closeWait(port) {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let n = 0;
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(hex) && cols[3] === '08') n++;
    }
  }
  return n;
}

function refusedUpgrade(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => resolve());
    s.once('connect', () =>
      s.write(
        'GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer pk_bad\r\n\r\n',
      ),
    );
    s.once('data', () => {
      s.end();
      setTimeout(() => s.destroy(), 50);
      resolve();
    });
  });
}

async function openGraphqlWs(url) {
  const ws = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
  ws.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('close', reject);
  });
  ws.send(JSON.stringify({ type: 'connection_init' }));
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('close', reject);
  });
  return ws;
}

/** Resolves on the socket's next 'drain', or after `ms`, whichever first (no listener left behind). */
const drained = (socket, ms) =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      socket.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    socket.once('drain', done);
  });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function latencies(url, auth, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ query: '{ __typename }' }),
    }).then((r) => r.text());
    out.push(performance.now() - t);
  }
  return out;
}

function createKey(databaseUrl) {
  const cli = path.join(path.dirname(entry), 'modules/auth/api-key.cli.js');
  const r = spawnSync(process.execPath, [cli, 'create', '--name', 'bench', '--scopes', 'admin'], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return { authorization: `Bearer ${r.stdout.trim().split('\n').at(-1)}` };
}

async function withServer(env, fn) {
  const db = await freshDatabase();
  const server = await startServer({ DATABASE_URL: db.url, ...env });
  try {
    return await fn(server, db);
  } finally {
    await server.stop();
    await db.drop();
  }
}

const results = {};

// 1. Refused upgrades.
if (items.has('1'))
  results.closeWait = await withServer({}, async (s) => {
    for (let i = 0; i < 2_000; i += 50) await Promise.all(Array.from({ length: 50 }, () => refusedUpgrade(s.port)));
    await sleep(3_000);
    return closeWait(s.port);
  });

// 2. Ping flood from a client that never reads.
if (items.has('2'))
  results.pingFlood = await withServer({ RATE_LIMIT_MAX: '10000000', SUBSCRIPTION_KEEPALIVE_MS: '0' }, async (s) => {
    const before = rssMiB(s.pid);
    const logBefore = s.logBytes();
    const ws = await openGraphqlWs(s.url);
    const socket = ws._socket;
    socket.pause();
    const frame = Buffer.concat([Buffer.from([0x81, 0x80 | 15, 0, 0, 0, 0]), Buffer.from('{"type":"ping"}')]);
    const burst = Buffer.concat(Array.from({ length: 20_000 }, () => frame));
    let peak = before;
    const end = Date.now() + floodMs;
    while (!socket.destroyed && Date.now() < end && peak - before < 1024) {
      if (!socket.write(burst)) await drained(socket, 500);
      await new Promise((r) => setImmediate(r));
      peak = Math.max(peak, rssMiB(s.pid));
    }
    const closed = socket.destroyed;
    socket.destroy();
    await sleep(1_000);
    return { rssBeforeMiB: before, rssPeakMiB: peak, closedByServer: closed, logBytes: s.logBytes() - logBefore };
  });

// 3. Another client's latency under a WebSocket message flood.
if (items.has('3'))
  results.latency = await withServer({}, async (s, db) => {
    const auth = createKey(db.url);
    await latencies(s.url, auth, 20); // warm-up (the key is cached)
    const alone = median(await latencies(s.url, auth, 100));
    let stop = false;
    let sent = 0;
    let closes = 0;
    const flood = (async () => {
      while (!stop) {
        let ws;
        try {
          ws = await openGraphqlWs(s.url);
        } catch {
          closes++;
          await sleep(100);
          continue;
        }
        for (let i = 0; !stop && ws.readyState === WebSocket.OPEN; i++) {
          ws.send(
            JSON.stringify({
              id: String(i),
              type: 'subscribe',
              payload: { query: 'subscription { stockChanged { quantity } }' },
            }),
          );
          ws.send(JSON.stringify({ id: String(i), type: 'complete' }));
          sent += 2;
          if (i % 100 === 0) await new Promise((r) => setImmediate(r));
        }
        closes++;
        ws.terminate();
      }
    })();
    await sleep(500);
    const during = [];
    const end = Date.now() + 10_000;
    while (Date.now() < end) during.push(...(await latencies(s.url, auth, 5)));
    stop = true;
    await flood;
    return { aloneMs: alone, duringFloodMs: median(during), floodMessagesSent: sent, floodConnectionsClosed: closes };
  });

// 4. /metrics after 100 long operation names.
if (items.has('4'))
  results.metrics = await withServer({}, async (s) => {
    const logBefore = s.logBytes();
    for (let i = 0; i < 100; i++) {
      const name = `Q${i}`.padEnd(100_000, 'x');
      await fetch(`${s.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `query ${name} { __typename }` }),
      }).then((r) => r.text());
    }
    const t = performance.now();
    const text = await (await fetch(s.metricsUrl)).text();
    return {
      metricsBytes: text.length,
      scrapeMs: Math.round(performance.now() - t),
      logBytes: s.logBytes() - logBefore,
    };
  });

console.log(JSON.stringify({ entry, ...results }, null, 2));
