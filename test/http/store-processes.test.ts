/**
 * Two gateway processes on one PostgreSQL database: the stock check must hold across processes, not
 * only across requests of one process. Needs a PostgreSQL server (TEST_DATABASE_URL, as CI sets it);
 * the embedded database is single-process by design, so without one this suite is skipped.
 */
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import type { ServerProcess } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';
import { gql, gqlOk, petInStock, PLACE_ORDER, startProcessPair, type ProcessPair } from '../helpers/gateway-fixture';

/** An admin key, created once both servers have migrated the database. */
let auth: Record<string, string> = {};

const describeWithPostgres = describeIf(usingPostgres(), NEEDS_POSTGRES);

describeWithPostgres('two gateway processes sharing one PostgreSQL database', () => {
  let pair: ProcessPair | undefined;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    pair = await startProcessPair();
    servers = pair.servers;
    auth = pair.admin;
  });

  afterAll(async () => {
    await pair?.dispose();
  });

  it('50 concurrent orders of 1 on a stock of 10, split across both, place exactly 10', async () => {
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const petId = await petInStock(a, auth, 10);
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => gql(i % 2 === 0 ? a : b, PLACE_ORDER, { p: petId }, auth)),
    );

    const outcome = replies.map((r) => r.errors?.[0]?.extensions.code ?? 'OK');
    expect(outcome.filter((c) => c === 'OK')).toHaveLength(10);
    expect(outcome.filter((c) => c === 'OUT_OF_STOCK')).toHaveLength(40);
    expect(new Set(replies.filter((r) => !r.errors).map((r) => r.data!.placeOrder.id)).size).toBe(10);

    const after = await gqlOk(
      b,
      'query($p: ID!) { pet(id: $p) { status inventory { quantity status } orders(first: 100) { totalCount } } }',
      { p: petId },
      auth,
    );
    expect(after.pet).toEqual({
      status: 'PENDING',
      inventory: { quantity: 0, status: 'PENDING' },
      orders: { totalCount: 10 },
    });
  });
});
