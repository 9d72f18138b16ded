/**
 * Read-your-writes across two processes survives a Redis restart. The windows live in Redis; a
 * restart (or a failover to a Redis replica that had not received them) loses those written just
 * before it, and none can be written while it is away. Once Redis is back, a caller who wrote just
 * before must still read its write, from the primary, through either process. A private primary and
 * streaming replica (the replica's replay paused: its lag made as long as the test needs), and Redis
 * behind a proxy the test controls; the restart is the proxy dropping every connection and the
 * windows' keys being lost.
 */
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { createDatabase } from '../../src/db/database';
import { createServices } from '../../src/modules/services';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { gqlOk } from '../helpers/gateway-fixture';
import {
  NEEDS_PG_BINARIES,
  replicationAvailable,
  startReplicatedPair,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { pollUntil } from '../helpers/poll';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createApiKey } from '../helpers/test-app';

jest.setTimeout(180_000);

const redisUrl = process.env.TEST_REDIS_URL;

describeIf(replicationAvailable && Boolean(redisUrl), replicationAvailable ? NEEDS_REDIS : NEEDS_PG_BINARIES)(
  'read-your-writes when Redis restarts',
  () => {
    const prefix = `petstore-test-${crypto.randomUUID()}:`;
    let pair: ReplicatedPair;
    let proxy: TcpProxy;
    let redis: Redis;
    const servers: ServerProcess[] = [];
    let writer: Record<string, string>;
    let categoryId: string;

    const ok = (url: string, query: string, variables: Record<string, unknown>) => gqlOk(url, query, variables, writer);

    beforeAll(async () => {
      pair = await startReplicatedPair();
      await pair.primary.query('CREATE DATABASE petstore');
      const target = new URL(redisUrl!);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
      redis = new Redis(redisUrl!);
      const env = {
        DATABASE_URL: pair.primary.url('petstore'),
        DATABASE_REPLICA_URLS: pair.replica.url('petstore'),
        DB_READ_YOUR_WRITES_MS: '60000',
        RATE_LIMIT_MAX: '10000000',
        REDIS_URL: proxy.via(redisUrl!),
        RATE_LIMIT_REDIS_PREFIX: prefix,
      };
      // One at a time: the first applies the migrations.
      servers.push(await startServerProcess(env));
      servers.push(await startServerProcess(env));
      const db = await createDatabase({ kind: 'postgres', url: pair.primary.url('petstore'), poolSize: 1 });
      try {
        writer = await createApiKey({ services: createServices(db) }, ['admin'], 'writer');
      } finally {
        await db.close();
      }
      ({
        createCategory: { id: categoryId },
      } = await ok(servers[0]!.url, 'mutation { createCategory(input: { name: "Birds" }) { id } }', {}));
      await pollUntil(
        async () =>
          (await pair.replica.query('SELECT 1 FROM categories WHERE id = $1', [categoryId], 'petstore').catch(() => []))
            .length,
        (n) => n === 1,
        30_000,
      );
      // From here on the replica lags behind the primary until the end of the test.
      await pair.replica.query('SELECT pg_wal_replay_pause()');
    });

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop('SIGKILL')));
      await pair?.stop();
      await proxy?.close();
      if (redis) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      }
    });

    it("still reads a caller's write from before the restart, through the other process", async () => {
      const [a, b] = [servers[0]!, servers[1]!];
      const { createPet } = await ok(
        a.url,
        'mutation($c: ID!) { createPet(input: { name: "Kiwi", categoryId: $c }) { id } }',
        { c: categoryId },
      );
      // Redis restarts: every connection dropped, and what it held of the windows is gone.
      await proxy.refuse();
      const windows = await redis.keys(`${prefix}ryw:*`);
      expect(windows.length).toBeGreaterThan(0);
      await redis.del(...windows);
      await proxy.restore();
      for (const server of [a, b])
        await pollUntil(
          async () => (await (await fetch(`${server.url}/readyz`)).json()) as { checks: { rateLimit: string } },
          (r) => r.checks.rateLimit === 'ok (redis)',
          15_000,
        );

      for (const server of [b, a]) {
        const { pet } = await ok(server.url, 'query($id: ID!) { pet(id: $id) { name } }', { id: createPet.id });
        expect(pet).toEqual({ name: 'Kiwi' });
      }
    });
  },
);
