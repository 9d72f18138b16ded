/**
 * The rate limit shared by two server processes through Redis: requests split across both count
 * against one budget. Needs a Redis server: set TEST_REDIS_URL (CI does); skipped otherwise.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

const redisUrl = process.env.TEST_REDIS_URL;
const describeWithRedis = describeIf(Boolean(redisUrl), NEEDS_REDIS);

describeWithRedis('the rate limit across two processes (Redis)', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('trips on the combined count of both processes', async () => {
    const env = {
      REDIS_URL: redisUrl!,
      // A prefix of its own, so runs never share counters.
      RATE_LIMIT_REDIS_PREFIX: `petstore-test-${crypto.randomUUID()}:`,
      RATE_LIMIT_MAX: '5',
      RATE_LIMIT_WINDOW_MS: '60000',
    };
    for (let i = 0; i < 2; i++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-rl-'));
      dirs.push(dir);
      servers.push(await startServerProcess({ ...env, PGLITE_DATA_DIR: dir }));
    }
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${servers[i % 2]!.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
          'RATE_LIMITED',
        );
      }
    }
    // Each process alone saw 4 requests, under its limit of 5: only a shared count trips.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });
});
