/**
 * Concurrent mixed traffic over HTTP, as a busy client population sends it: GraphQL queries (lists
 * with relations, one pet), the REST GETs, and writes (orders placed, stock set). Used by the
 * PgBouncer and replica suites and by bench/pg-topologies.ts. Counts answers, not timings.
 */
export interface LoadResult {
  requests: number;
  reads: number;
  writes: number;
  /** Answers that were not a success (HTTP status not 2xx, or GraphQL errors), by code. */
  errors: number;
  codes: Record<string, number>;
}

const READS: { graphql?: string; rest?: (petId: string) => string }[] = [
  { graphql: '{ pets(first: 10) { totalCount edges { node { id name status category { name } } } } }' },
  { graphql: 'query($id: ID!) { pet(id: $id) { id name inventory { quantity } } }' },
  { graphql: '{ orders(first: 5) { totalCount edges { node { id quantity } } } }' },
  { rest: (petId) => `/pets/${petId}` },
  { rest: () => '/store/orders?limit=5' },
];

/**
 * `concurrency` clients, each sending requests back to back until `iterations` each (or `durationMs`)
 * are done; every fourth request of a client is a write (half orders placed, half stock set).
 */
export async function mixedLoad(
  url: string,
  headers: Record<string, string>,
  petId: string,
  { concurrency = 32, iterations = 20, durationMs }: { concurrency?: number; iterations?: number; durationMs?: number },
): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, reads: 0, writes: 0, errors: 0, codes: {} };
  const fail = (code: string) => {
    result.errors++;
    result.codes[code] = (result.codes[code] ?? 0) + 1;
  };
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
    if (!res.ok || body.errors) fail(body.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`);
  };
  const deadline = durationMs ? Date.now() + durationMs : Infinity;
  const client = async (n: number) => {
    for (let i = 0; durationMs ? Date.now() < deadline : i < iterations; i++) {
      result.requests++;
      try {
        if ((n + i) % 4 === 3) {
          result.writes++;
          await graphql(
            i % 2 === 0
              ? 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id } }'
              : 'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }',
            { p: petId, q: 1_000_000 },
          );
        } else {
          result.reads++;
          const read = READS[(n + i) % READS.length]!;
          if (read.graphql) await graphql(read.graphql, { id: petId });
          else {
            const res = await fetch(`${url}${read.rest!(petId)}`, { headers });
            await res.arrayBuffer();
            if (!res.ok) fail(`HTTP ${res.status}`);
          }
        }
      } catch (error) {
        fail((error as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, n) => client(n)));
  return result;
}
