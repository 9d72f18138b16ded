/**
 * Issue 33, item 3: every process fixes V8's heap growing factor (HEAP_GROWING_PERCENT, src/heap.ts)
 * before the server's modules load, so the old generation is collected at 1.5x what the last full
 * collection left live instead of V8's up to 4x under load. Read from V8's own trace of each limit it
 * computes (`--trace-gc-verbose`), in the real process, after real requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { pollUntil } from '../helpers/poll';
import { adminSocketPath, sendSeedToAdminSocket } from '../../src/modules/auth/api-key.socket';
import { imageNodeOptionsOf } from '../helpers/image-env';

jest.setTimeout(180_000);

/**
 * The growing factors V8 has used so far in `server`, in order. Node 20's V8 prints the factor it
 * used at the end of each "Limit:" line (and, before it, the one its heuristics proposed: "factor
 * 4.0 based on ..."); Node 24's prints the one it used as "factor F based on ..." only.
 */
function factors(server: ServerProcess): number[] {
  const lines = server.output.filter((line) => line.includes('[HeapController]'));
  const read = (pattern: RegExp) =>
    lines.flatMap((line) => {
      const m = pattern.exec(line);
      return m ? [Number(m[1])] : [];
    });
  const used = read(/Limit: .*\(([\d.]+)\)\s*$/);
  return used.length ? used : read(/factor ([\d.]+) based on/);
}

/** Requests that allocate (introspection, answered whole): garbage for the collector to find. */
async function allocate(url: string): Promise<void> {
  const query = '{ __schema { types { name fields { name args { name } type { name kind ofType { name } } } } } }';
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    await res.text();
  }
}

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * A gateway process on a data directory of its own (`dataDir`), run with V8's `nodeFlags`; stopped
 * after the file.
 */
async function startGateway(
  env: Record<string, string>,
  nodeFlags: string[],
): Promise<ServerProcess & { dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-heap-'));
  dirs.push(dataDir);
  const server = await startServerProcess(
    { PGLITE_DATA_DIR: dataDir, GRAPHQL_INTROSPECTION: 'true', RATE_LIMIT_MAX: '10000000', ...env },
    { nodeFlags },
  );
  servers.push(server);
  return Object.assign(server, { dataDir });
}

describe('the V8 heap growing factor of a gateway process', () => {
  const start = (env: Record<string, string>) => startGateway(env, ['--trace-gc-verbose']);

  /** The factors V8 used, once it has computed at least one limit (requests sent until then). */
  async function factorsOnceCollected(server: ServerProcess): Promise<number[]> {
    await pollUntil(
      async () => {
        if (!factors(server).length) await allocate(server.url);
        return factors(server).length;
      },
      (n) => n > 0,
      120_000,
    );
    return factors(server);
  }

  it('is 1.5 by default (HEAP_GROWING_PERCENT=50) in every limit V8 computes, from start-up on', async () => {
    const server = await start({});
    expect(new Set(await factorsOnceCollected(server))).toEqual(new Set([1.5]));
  });

  it('follows HEAP_GROWING_PERCENT (100: 2.0)', async () => {
    const server = await start({ HEAP_GROWING_PERCENT: '100' });
    expect(new Set(await factorsOnceCollected(server))).toEqual(new Set([2]));
  });

  it("is V8's own with HEAP_GROWING_PERCENT=0: not fixed at any one value", async () => {
    // V8 picks each factor from its speed (up to 4.0 at start-up); fixed, every limit has the same one.
    const server = await start({ HEAP_GROWING_PERCENT: '0' });
    const seen = await factorsOnceCollected(server);
    expect(seen).not.toEqual(seen.map(() => 1.5));
  });
});

/**
 * Allocation-site pretenuring (HEAP_PRETENURING, src/heap.ts): off by default. With
 * `--trace-pretenuring-statistics` V8 prints a "pretenuring:" line for each allocation site it
 * weighs after a young collection; with pretenuring off it weighs none.
 */
describe('V8 allocation-site pretenuring in a gateway process', () => {
  async function weighedSites(env: Record<string, string>): Promise<string[]> {
    const server = await startGateway(env, ['--trace-pretenuring-statistics', '--trace-gc']);
    // What V8 did once the server was up (before main.ts applies the setting, start-up may have collected).
    const from = server.output.length;
    const since = () => server.output.slice(from);
    // Young collections after start-up: V8 weighs its sites (when it may) at each of them.
    const scavenges = () => since().filter((line) => line.includes('Scavenge')).length;
    const before = scavenges();
    await pollUntil(
      async () => {
        await allocate(server.url);
        return scavenges() - before;
      },
      (n) => n >= 3,
      120_000,
    );
    return since().filter((line) => line.includes('pretenuring:'));
  }

  it('is off by default: V8 never weighs an allocation site for the old generation', async () => {
    expect(await weighedSites({})).toEqual([]);
  });

  it("is V8's own with HEAP_PRETENURING=true", async () => {
    expect((await weighedSites({ HEAP_PRETENURING: 'true' })).length).toBeGreaterThan(0);
  });
});

/**
 * What a request leaves for the old generation. V8's young collector copies what is still reachable
 * and promotes what survived once before; a request's objects die with it, so a gateway should
 * promote next to nothing per request. Apollo's gateway interface (how graphql-jit executes,
 * src/graphql/jit-gateway.ts) made each request's `response.http` an object literal with `get`/`set`
 * `status`: V8 allocates such accessors in the old generation, where they point at closures over the
 * whole request context, so every young collection kept each request alive and promoted it (W2: ~15 KB
 * a request, full collections 5x as often). patches/@apollo+server+5.5.1.patch puts the accessors on
 * a class (patches/README.md). Read from V8's own trace of each young collection (`--trace-gc-nvp`).
 */
describe('what a request promotes to the old generation', () => {
  it('is under 6 KB per request for a page of pets with their categories, at 8 in flight', async () => {
    const server = await startGateway({}, ['--trace-gc-nvp']);
    // The demo catalogue (17 pets in 5 categories), through the running server's admin socket.
    await sendSeedToAdminSocket(adminSocketPath(server.dataDir));
    const query = '{ pets(first: 50) { edges { cursor node { id name status category { id name } } } } }';
    const send = async () => {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { data?: { pets: { edges: unknown[] } } };
      expect(body.data?.pets.edges.length).toBeGreaterThan(0);
    };
    // Warm: the document parsed, validated and compiled, the code optimised, the young generation grown.
    for (let i = 0; i < 200; i++) await send();
    const from = server.output.length;
    const requests = 3000;
    let sent = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent < requests) {
          sent++;
          await send();
        }
      }),
    );
    const scavenges = server.output.slice(from).filter((line) => / gc=s /.test(line));
    const promoted = scavenges.reduce((sum, line) => sum + Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0), 0);
    // Enough young collections for the figure to mean something.
    expect(scavenges.length).toBeGreaterThanOrEqual(5);
    expect(promoted / requests / 1024).toBeLessThan(6);
  });
});

/**
 * The container image bounds V8's young generation (NODE_OPTIONS in the Dockerfile, read from it as
 * test/helpers/image-env.ts does for the bench): its two semi-spaces stay at 16 MiB each, where V8
 * would grow them to 64 MiB under load, 128 MiB of a process's ~330 MiB peak (docs/deployment.md
 * "Memory"). Read from V8's trace after each collection (`--trace-gc-verbose`: "New space, ...
 * committed: N KB", both semi-spaces).
 */
describe('the young generation of a gateway run as the image runs it', () => {
  /** The most memory V8 committed to the young generation, from start-up through requests that allocate. */
  async function largestNewSpaceKb(env: Record<string, string>): Promise<number> {
    const server = await startGateway(env, ['--trace-gc-verbose']);
    const committed = () =>
      server.output.flatMap((line) => {
        const m = /New space,.*committed:\s*(\d+) KB/.exec(line);
        return m ? [Number(m[1])] : [];
      });
    await pollUntil(
      async () => {
        await allocate(server.url);
        return committed().length;
      },
      (n) => n >= 20,
      120_000,
    );
    return Math.max(...committed());
  }

  it("stays at two 16 MiB semi-spaces with the image's NODE_OPTIONS, and grows past them without", async () => {
    const options = imageNodeOptionsOf(path.join(__dirname, '..', '..'));
    expect(options).toContain('--max-semi-space-size=16');
    expect(await largestNewSpaceKb({ NODE_OPTIONS: options! })).toBeLessThanOrEqual(2 * 16 * 1024);
    // The control: the same process and requests without the bound, so that the figure above means
    // something. The image runs Node 24 (FROM node:24-...), whose V8 grows each semi-space to 64 MiB;
    // Node 20's stops at 16 MiB by itself, so there the bound changes nothing.
    const unbounded = await largestNewSpaceKb({});
    if (Number(process.versions.node.split('.')[0]) >= 24) expect(unbounded).toBeGreaterThan(2 * 16 * 1024);
    else expect(unbounded).toBeGreaterThanOrEqual(2 * 16 * 1024);
  });
});
