/**
 * The in-process cache of authenticated API keys (src/modules/auth/api-key.cache.ts), seen from
 * outside: how many statements a request with a key sends, and when a revoked key stops working.
 * Several processes on one PostgreSQL database, and the loss of the LISTEN connection, are in
 * test/http/api-key-processes.test.ts.
 */
import crypto from 'node:crypto';
import { buildApp } from '../../src/app';
import { createApiKey, createTestApp, testConfig, type TestApp } from '../helpers/test-app';
import { pollUntil } from '../helpers/poll';
import { usingPostgres } from '../helpers/test-database';

const Orders = 'query { orders { totalCount } }';

describe('the API-key cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const send = async (headers: Record<string, string>) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', ...headers },
        payload: { query: Orders },
      })
    ).statusCode;
  /** Statements of the last `t.sql.reset()` on that read or write the api_keys table. */
  const keyStatements = () => t.sql.statements.filter((q) => q.includes('"api_keys"'));
  const keyId = async (name: string) => (await t.services.apiKeys.list()).find((k) => k.name === name)!.id;

  it('reads a key once: later requests with it send no statement for it', async () => {
    const headers = await createApiKey(t, ['orders:read'], 'read once');
    t.sql.reset();
    expect(await send(headers)).toBe(200);
    expect(keyStatements()).toEqual([
      expect.stringMatching(/^SELECT /),
      expect.stringMatching(/^UPDATE .*last_used_at/),
    ]);
    t.sql.reset();
    expect(await send(headers)).toBe(200);
    expect(await send(headers)).toBe(200);
    expect(keyStatements()).toEqual([]);
  });

  it('reads an unknown key on every request (failures are never cached)', async () => {
    const unknown = { authorization: `Bearer pk_${crypto.randomBytes(32).toString('base64url')}` };
    t.sql.reset();
    expect(await send(unknown)).toBe(401);
    expect(await send(unknown)).toBe(401);
    expect(keyStatements()).toEqual([expect.stringMatching(/^SELECT /), expect.stringMatching(/^SELECT /)]);
  });

  it('refuses a cached key on the next request after it is revoked', async () => {
    const headers = await createApiKey(t, ['orders:read'], 'cached then revoked');
    expect(await send(headers)).toBe(200);
    t.sql.reset();
    expect(await send(headers)).toBe(200);
    expect(keyStatements()).toEqual([]); // served from the cache
    await t.services.apiKeys.revoke(await keyId('cached then revoked'));
    if (!usingPostgres()) {
      // PGlite runs in this process: the notification is heard as the revocation commits.
      expect(await send(headers)).toBe(401);
      return;
    }
    // PostgreSQL sends it to the listener's own connection: it arrives within milliseconds.
    expect(
      await pollUntil(
        () => send(headers),
        (status) => status === 401,
      ),
    ).toBe(401);
  });

  it('records the last use of a cached key once a minute, without reading the key', async () => {
    const headers = await createApiKey(t, ['orders:read'], 'used for long');
    expect(await send(headers)).toBe(200);
    const id = await keyId('used for long');
    const firstUse = (await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt!;
    // A minute later by the service's clock; the cache entry's own age (performance.now) is not moved.
    const now = jest.spyOn(Date, 'now').mockReturnValue(firstUse.getTime() + 61_000);
    try {
      t.sql.reset();
      expect(await send(headers)).toBe(200);
      expect(keyStatements()).toEqual([expect.stringMatching(/^UPDATE .*last_used_at/)]);
      t.sql.reset();
      expect(await send(headers)).toBe(200);
      expect(keyStatements()).toEqual([]);
    } finally {
      now.mockRestore();
    }
    const recorded = (await t.db.prisma.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt!;
    expect(recorded.getTime()).toBe(firstUse.getTime() + 61_000);
  });

  it('is off with API_KEY_CACHE_TTL_MS=0: every request reads its key', async () => {
    const headers = await createApiKey(t, ['orders:read'], 'no cache');
    const config = { ...testConfig({ RATE_LIMIT_MAX: '1000000', API_KEY_CACHE_TTL_MS: '0' }), database: t.config };
    const uncached = await buildApp({ config, db: t.db, logger: false });
    try {
      const sendUncached = async () =>
        (
          await uncached.inject({
            method: 'POST',
            url: '/graphql',
            headers: { 'content-type': 'application/json', ...headers },
            payload: { query: Orders },
          })
        ).statusCode;
      expect(await sendUncached()).toBe(200);
      t.sql.reset();
      expect(await sendUncached()).toBe(200);
      expect(await sendUncached()).toBe(200);
      expect(keyStatements()).toEqual([expect.stringMatching(/^SELECT /), expect.stringMatching(/^SELECT /)]);
    } finally {
      await uncached.close();
    }
  });
});
