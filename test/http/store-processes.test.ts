/**
 * Two gateway processes on one PostgreSQL database: the stock check must hold across processes, not
 * only across requests of one process. Needs a PostgreSQL server (TEST_DATABASE_URL, as CI sets it);
 * the embedded database is single-process by design, so without one this suite is skipped.
 */
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import type { ServerProcess } from '../helpers/server-process';
import { usingPostgres } from '../helpers/test-database';
import { startProcessPair, type ProcessPair } from '../helpers/gateway-fixture';

interface Reply {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions: { code: string } }[];
}

/** An admin key, created once both servers have migrated the database. */
let auth: Record<string, string> = {};

const post = async (url: string, query: string, variables: Record<string, unknown> = {}): Promise<Reply> =>
  (await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ query, variables }),
  }).then((r) => r.json())) as Reply;

const ok = async (url: string, query: string, variables: Record<string, unknown> = {}) => {
  const reply = await post(url, query, variables);
  if (reply.errors) throw new Error(JSON.stringify(reply.errors));
  return reply.data!;
};

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
    const { createCategory } = await ok(a, 'mutation { createCategory(input: { name: "Across processes" }) { id } }');
    const { createPet } = await ok(
      a,
      'mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }',
      {
        c: createCategory.id,
      },
    );
    const petId = createPet.id as string;
    await ok(b, 'mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 10 }) { quantity } }', { p: petId });

    const place = 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id } }';
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(i % 2 === 0 ? a : b, place, { p: petId })),
    );

    const outcome = replies.map((r) => r.errors?.[0]?.extensions.code ?? 'OK');
    expect(outcome.filter((c) => c === 'OK')).toHaveLength(10);
    expect(outcome.filter((c) => c === 'OUT_OF_STOCK')).toHaveLength(40);
    expect(new Set(replies.filter((r) => !r.errors).map((r) => r.data!.placeOrder.id)).size).toBe(10);

    const after = await ok(
      b,
      'query($p: ID!) { pet(id: $p) { status inventory { quantity status } orders(first: 100) { totalCount } } }',
      { p: petId },
    );
    expect(after.pet).toEqual({
      status: 'PENDING',
      inventory: { quantity: 0, status: 'PENDING' },
      orders: { totalCount: 10 },
    });
  });
});
