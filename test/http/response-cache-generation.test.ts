/**
 * The shared response cache's generation in Redis (docs/caching.md) takes `INCR`: a release before
 * the generation was a random token counted it with `INCR` on every write, and during a rolling
 * deploy (docs/deployment.md) both releases share one Redis; docs/caching.md also gives operators
 * `redis-cli INCR petstore-rc:gen` to drop everything after a write outside the gateway. A UUID
 * token refused both ("ERR value is not an integer"): the older gateways' writes were never seen by
 * the newer ones, which served the answers from before them until the TTL.
 * Needs Redis (TEST_REDIS_URL).
 */
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { pollUntil } from '../helpers/poll';

const redisUrl = process.env.TEST_REDIS_URL;

describeIf(Boolean(redisUrl), NEEDS_REDIS)('the response cache generation in Redis', () => {
  const prefix = `petstore-test-rc-${crypto.randomUUID()}:`;
  let t: TestApp;
  let redis: Redis;
  let category: string;

  const read = async () => {
    const search = new URLSearchParams({
      query: 'query($c: ID!) { category(id: $c) { name } }',
      variables: JSON.stringify({ c: category }),
    });
    const res = await t.app.inject({ method: 'GET', url: `/graphql?${search}` });
    return { cached: res.headers.age !== undefined, name: (res.json() as any).data.category.name as string };
  };

  beforeAll(async () => {
    redis = new Redis(redisUrl!);
    t = await createTestApp({
      env: { REDIS_URL: redisUrl!, RESPONSE_CACHE_TTL_S: '300', RESPONSE_CACHE_REDIS_PREFIX: prefix },
      auth: 'admin',
    });
    const created = await t.gqlOk('mutation { createCategory(input: { name: "Dogs" }) { id } }');
    category = (created as { createCategory: { id: string } }).createCategory.id;
  });
  afterAll(async () => {
    await t?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("is moved on by INCR, as an older release's write or an operator moves it", async () => {
    // A generation this release set (a write through it), and an answer cached under it.
    await t.gqlOk(`mutation { updateCategory(id: "${category}", input: { name: "Hounds" }) { id } }`);
    const first = await pollUntil(read, (r) => r.cached, 10_000);
    expect(first.name).toBe('Hounds');

    // A write that does not go through this release: the database changed, then INCR on the generation.
    await t.db.prisma.$executeRaw`UPDATE categories SET name = 'Wolves' WHERE id = ${BigInt(category)}`;
    await expect(redis.incr(`${prefix}gen`)).resolves.toEqual(expect.any(Number));

    const after = await read();
    expect(after).toEqual({ cached: false, name: 'Wolves' });
    // And this release caches again on the generation the INCR made.
    expect(await pollUntil(read, (r) => r.cached, 10_000)).toEqual({ cached: true, name: 'Wolves' });
  });
});
