/**
 * The shared response cache when its Redis is full (docs/caching.md): a Redis at its `maxmemory`
 * with the default `noeviction` policy refuses every write that may grow it, the one that moves
 * the cache's generation on included. A write through one process must still never leave another
 * serving an answer from before it. Two gateway processes on one PostgreSQL database, a private
 * `redis-server` of a few MiB (started here, so its memory limit is this test's own).
 * Needs PostgreSQL (TEST_DATABASE_URL) and a `redis-server` binary (Debian's redis-server package).
 */
import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import Redis from 'ioredis';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { startProcessPair, type ProcessPair } from '../helpers/gateway-fixture';
import { freePort } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';
import { pollUntil } from '../helpers/poll';

const redisServer = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
})();

const NEEDS_REDIS_SERVER = {
  needs: 'a redis-server binary',
  run: 'apt-get install -y redis-server, then TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npm test',
};

const PET = 'query($p: ID!) { pet(id: $p) { name inventory { quantity } } }';

async function get(url: string, variables: Record<string, unknown>) {
  const search = new URLSearchParams({ query: PET, variables: JSON.stringify(variables) });
  const res = await fetch(`${url}/graphql?${search}`);
  return {
    age: res.headers.get('age'),
    body: (await res.json()) as { data: { pet: { inventory: { quantity: number } } } },
  };
}

describeIf(usingPostgres(), NEEDS_POSTGRES)('the shared response cache in a full Redis', () => {
  describeIf(redisServer !== null, NEEDS_REDIS_SERVER)('(noeviction, at maxmemory)', () => {
    let redis: ChildProcess | undefined;
    let client: Redis | undefined;
    let pair: ProcessPair | undefined;

    beforeAll(async () => {
      const port = await freePort();
      redis = spawn(redisServer!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
      await pollUntil(
        () =>
          client!.connect().then(
            () => true,
            () => false,
          ),
        (ok) => ok,
        10_000,
      );
      pair = await startProcessPair({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        RESPONSE_CACHE_TTL_S: '300',
        RATE_LIMIT_MAX: '10000000',
      });
    });
    afterAll(async () => {
      await pair?.dispose();
      client?.disconnect();
      redis?.kill('SIGKILL');
    });

    it('never serves an answer older than a write, and caches again once Redis has room', async () => {
      const [a, b] = pair!.servers.map((s) => s.url) as [string, string];
      const post = async (query: string, variables: Record<string, unknown>) => {
        const res = await fetch(`${a}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...pair!.admin },
          body: JSON.stringify({ query, variables }),
        });
        const body = (await res.json()) as { data?: any; errors?: unknown };
        if (!body.data || body.errors) throw new Error(JSON.stringify(body));
        return body.data;
      };
      const { createCategory } = await post('mutation { createCategory(input: { name: "Dogs" }) { id } }', {});
      const { createPet } = await post(
        'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
        {
          c: createCategory.id,
        },
      );
      const p = createPet.id as string;
      await post('mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 42 }) { quantity } }', { p });

      // B serves pet p from the shared cache.
      const cached = await pollUntil(
        () => get(b, { p }),
        (r) => r.age !== null,
        10_000,
      );
      expect(cached.body.data.pet.inventory.quantity).toBe(42);

      // Redis is full (its use above its limit): from now on it refuses SET, INCR and every other
      // write that may grow it, and still takes reads and DEL.
      await client!.config('SET', 'maxmemory-policy', 'noeviction');
      await client!.config('SET', 'maxmemory', '1');
      await expect(client!.set('probe', '1')).rejects.toThrow(/OOM/);

      await post('mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 321 }) { quantity } }', { p });
      for (let i = 0; i < 3; i++) {
        const read = await get(b, { p });
        expect(read.body.data.pet.inventory.quantity).toBe(321);
      }

      // The invalidation was made, not given up on as if Redis were away.
      expect(pair!.servers[0].output.join('\n')).not.toMatch(/could not invalidate/);

      // Room again: the cache serves (the new data) once more.
      await client!.config('SET', 'maxmemory', '0');
      const again = await pollUntil(
        () => get(b, { p }),
        (r) => r.age !== null,
        10_000,
      );
      expect(again.body.data.pet.inventory.quantity).toBe(321);
    });
  });
});
