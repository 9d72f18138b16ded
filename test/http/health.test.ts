import type { Pool, PoolClient } from 'pg';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { usingPostgres } from '../helpers/test-database';

describe('operational endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers liveness and readiness', async () => {
    expect((await t.app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      database: t.db.kind,
      checks: { database: 'ok', rateLimit: 'ok (memory)' },
    });
  });

  it('asks the database once for readiness checks that arrive together (/readyz is not rate limited)', async () => {
    // Anyone may call /readyz as often as they like: a flood of it was a flood of statements, each
    // taking a pooled connection from the requests being served.
    const pings = jest.spyOn(t.db, 'ping');
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => t.app.inject('/readyz')));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(50).fill(200));
      expect(pings).toHaveBeenCalledTimes(1);
      // A check that arrives after the shared one answered asks again: no answer is older than its request.
      pings.mockClear();
      expect((await t.app.inject('/readyz')).statusCode).toBe(200);
      expect(pings).toHaveBeenCalledTimes(1);
    } finally {
      pings.mockRestore();
    }
  });

  it('answers an unknown path with the spec Error object', async () => {
    const res = await t.app.inject('/nowhere?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ code: 'NOT_FOUND', message: 'No route for GET /nowhere', status: 404 });
  });

  it('gives every response a request id, keeping a sane incoming one and replacing an unsafe one', async () => {
    expect((await t.app.inject('/healthz')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id'],
    ).toBe('abc-123');
    expect(
      (await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\u0001' } })).headers['x-request-id'],
    ).not.toContain('bad');
  });

  it('serves Apollo Sandbox at /graphql to a browser in development', async () => {
    const res = await t.app.inject({ url: '/graphql', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/sandbox/i);
  });
});

describe('readiness without a database', () => {
  it('answers 503 once the database no longer answers, while liveness stays up', async () => {
    const t = await createTestApp();
    try {
      await t.db.close();
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        status: 'unavailable',
        database: t.db.kind,
        checks: { database: 'unavailable', rateLimit: 'ok (memory)' },
      });
      expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await t.app.close();
      // Closed already: this drops the PostgreSQL database, or removes the PGlite copy.
      await t.destroy().catch(() => undefined);
    }
  });
});

describeIf(usingPostgres(), NEEDS_POSTGRES)('readiness while every pooled connection is serving', () => {
  it('answers 200: the check has a connection of its own, and a busy pool does not hold it back', async () => {
    // A burst that takes every connection of the pool (requests queue for one) is no database that
    // does not answer: through the pool, the check waited behind them and answered 503 after
    // READINESS_TIMEOUT_MS, taking every process under the same load out of its load balancer.
    const t = await createTestApp({ env: { READINESS_TIMEOUT_MS: '300' } });
    const pool = t.db.pool as Pool;
    const held: PoolClient[] = [];
    try {
      for (let i = 0; i < pool.options.max; i++) held.push(await pool.connect());
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
      // The pool is still full: what waits for it is the requests, not the check.
      expect(pool.waitingCount).toBe(0);
      expect(pool.totalCount).toBe(pool.options.max);
    } finally {
      for (const client of held) client.release();
      await t.close();
    }
  });
});
