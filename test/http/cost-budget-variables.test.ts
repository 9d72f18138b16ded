/**
 * The cost budget (docs/cost-limits.md) and variables execution refuses: "An operation refused by
 * one of those checks costs nothing", and an answer that ran nothing has `requested: 0`. A variable
 * of the wrong type (or a non-null one sent as null) is refused with 400 and no `data` before
 * anything runs, so it spends no points, alone or in a batch.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

// (2 + 1.5 x (2 + 1.5 x (1 + 1))) x 20 = 190 points.
const PETS = 'query($n: Int) { pets(first: $n) { nodes { id name } } }';
const PET = 'query($id: ID!) { pet(id: $id) { name } }';

describe('the cost budget and variables that execution refuses', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RATE_LIMIT_COST_BUDGET: '20000', RATE_LIMIT_WINDOW_MS: '600000' } });
  });
  afterAll(async () => t?.close());

  it('charges nothing for an operation whose variables are refused (400, no data)', async () => {
    const before = await post(t.url, { query: '{ __typename }' });
    const left = before.body.extensions.cost.remaining as number;
    for (const [query, variables] of [
      [PETS, { n: 'twenty' }],
      [PET, { id: 'not-an-id' }],
      [PET, { id: null }],
      [PET, {}],
    ] as const) {
      const refused = await post(t.url, { query, variables });
      expect([variables, refused.status]).toEqual([variables, 400]);
      expect(refused.body.data).toBeUndefined();
      expect([variables, refused.body.extensions.cost]).toEqual([
        variables,
        expect.objectContaining({ requested: 0, remaining: left }),
      ]);
      expect(refused.headers.get('ratelimit-remaining')).toBe(String(left));
    }
    // A batch is charged the operations that will run: here the one with good variables only.
    const batch = await post(t.url, [
      { query: PETS, variables: { n: 20 } },
      { query: PETS, variables: { n: 'twenty' } },
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body[1].errors[0].extensions.status).toBe(400);
    expect(batch.body[0].extensions.cost.remaining).toBe(left - 190);
  });
});

describe('the cost budget and an operation that cannot be identified', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RATE_LIMIT_COST_BUDGET: '20000', RATE_LIMIT_WINDOW_MS: '600000' } });
  });
  afterAll(async () => t?.close());

  it('answers 400 BAD_REQUEST and charges nothing, alone or in a batch (it was a 500 INTERNAL)', async () => {
    const before = await post(t.url, { query: '{ __typename }' });
    const left = before.body.extensions.cost.remaining as number;
    const twoOperations = 'query A { pets(first: 5) { nodes { id } } } query B { __typename }';
    for (const body of [
      { query: twoOperations, operationName: 'C' }, // no operation of that name
      { query: twoOperations }, // several operations and no name
    ]) {
      const refused = await post(t.url, body);
      expect([body, refused.status]).toEqual([body, 400]);
      expect(refused.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.extensions.cost).toEqual(expect.objectContaining({ requested: 0, remaining: left }));
    }
    // In a batch, the other operations still run and are charged; the unidentified one is not.
    const batch = await post(t.url, [{ query: '{ __typename }' }, { query: twoOperations, operationName: 'C' }]);
    expect(batch.status).toBe(200);
    expect(batch.body[0].data).toEqual({ __typename: 'Query' });
    expect(batch.body[1].errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(batch.body[1].extensions.cost).toEqual(expect.objectContaining({ requested: 0, remaining: left - 1 }));
  });
});

describe('the cost budget and a batch holding an operation that validation refuses', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RATE_LIMIT_COST_BUDGET: '20000', RATE_LIMIT_WINDOW_MS: '600000' } });
  });
  afterAll(async () => t?.close());

  it('charges the batch only the operations that run (it charged the refused ones their cost)', async () => {
    const before = await post(t.url, { query: '{ __typename }' });
    const left = before.body.extensions.cost.remaining as number;
    // Each refused before it runs: an unknown field (725 points as written), the depth limit, the aliases limit.
    const refused = [
      '{ pets(first: 100) { nodes { idx } } }',
      '{ pets(first: 2) { nodes { category { pets(first: 2) { nodes { category { pets(first: 2) { nodes { category { pets(first: 2) { nodes { id } } } } } } } } } } } }',
      `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: pets(first: 10) { nodes { id } }`).join(' ')} }`,
    ];
    const batch = await post(t.url, [{ query: '{ __typename }' }, ...refused.map((query) => ({ query }))]);
    expect(batch.status).toBe(200);
    expect(batch.body[0].data).toEqual({ __typename: 'Query' });
    for (const answer of batch.body.slice(1)) {
      expect(answer.data).toBeUndefined();
      expect(answer.errors[0].extensions.status).toBe(400);
      expect(answer.extensions.cost).toEqual(expect.objectContaining({ requested: 0 }));
    }
    expect(batch.body[0].extensions.cost).toEqual(expect.objectContaining({ requested: 1, remaining: left - 1 }));
    const after = await post(t.url, { query: '{ __typename }' });
    expect(after.body.extensions.cost.remaining).toBe(left - 2);
  });
});

describe('the cost budget and a batch Apollo refuses before anything runs', () => {
  let t: ListeningApp;
  beforeAll(async () => {
    t = await createListeningApp({ env: { RATE_LIMIT_COST_BUDGET: '20000', RATE_LIMIT_WINDOW_MS: '600000' } });
  });
  afterAll(async () => t?.close());

  const PAGE = '{ pets(first: 100) { nodes { id } } }'; // 725 points

  it('refuses a batch holding a malformed operation before any runs: the mutation does not happen, nothing is charged', async () => {
    const before = await post(t.url, { query: '{ __typename }' }, t.admin);
    const left = before.body.extensions.cost.remaining as number;
    let n = 0;
    for (const malformed of [
      { query: PAGE, operationName: 5 },
      { query: PAGE, variables: [100] },
      { query: PAGE, extensions: [] },
      { query: 5 },
      null,
    ]) {
      const name = `Ghost ${++n}`;
      const refused = await post(
        t.url,
        [{ query: PAGE }, { query: `mutation { createCategory(input: { name: "${name}" }) { id } }` }, malformed],
        t.admin,
      );
      expect([malformed, refused.status]).toEqual([malformed, 400]);
      expect(refused.body.errors[0].extensions.code).toBe('BAD_REQUEST');
      expect(refused.body.errors[0].message).toMatch(/^Operation 3 of the batch: .*Nothing was run/);
    }
    // Apollo started the well-formed operations anyway: their writes landed after the 400 was sent.
    // A read of every category after one more request shows none.
    await post(t.url, { query: '{ __typename }' }, t.admin);
    const categories = await post(t.url, { query: '{ categories(first: 100) { nodes { name } } }' }, t.admin);
    expect(JSON.stringify(categories.body.data)).not.toMatch(/Ghost/);
    const after = await post(t.url, { query: '{ __typename }' }, t.admin);
    expect(after.body.extensions.cost.remaining).toBe(left - 2 - categories.body.extensions.cost.requested);
  });

  it('charges nothing for an operation whose persisted-query hash Apollo refuses (it was charged its cost)', async () => {
    const before = await post(t.url, { query: '{ __typename }' });
    const left = before.body.extensions.cost.remaining as number;
    const batch = await post(t.url, [
      { query: '{ __typename }' },
      { query: PAGE, extensions: { persistedQuery: { version: 1, sha256Hash: 'b'.repeat(64) } } },
      { query: PAGE, extensions: { persistedQuery: { version: 2, sha256Hash: 'b'.repeat(64) } } },
    ]);
    expect(batch.status).toBe(200);
    expect(batch.body[1].errors[0].extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
    expect(batch.body[2].errors[0].extensions.status).toBe(400);
    expect(batch.body[0].extensions.cost).toEqual(expect.objectContaining({ requested: 1, remaining: left - 1 }));
  });
});
