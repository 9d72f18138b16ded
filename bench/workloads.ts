/**
 * The workloads of issue 6. The GraphQL documents are sent byte for byte as written here; T0
 * recognises them by their text (it parses no GraphQL), so a change here is a change to T0 too.
 */

export type WorkloadId = 'W1' | 'W2' | 'W3' | 'W4' | 'W5' | 'W6' | 'W7' | 'WG';

export const W1_QUERY = 'query W1($id: ID!) { pet(id: $id) { id name categoryId status } }';

export const W2_QUERY =
  'query W2($first: Int!) { pets(first: $first) { edges { cursor node { id name status category { id name } inventory { quantity } } } pageInfo { hasNextPage endCursor } } }';

export const W3_QUERY =
  'query W3($first: Int!) { orders(first: $first) { nodes { id quantity shipDate complete pet { id name category { id name } } } pageInfo { hasNextPage endCursor } } }';

export const W4_MUTATION =
  'mutation W4($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id petId quantity complete } }';

/** W4 with relations in its payload: the write, then the pet and its category (read after it). */
export const W7_MUTATION =
  'mutation W7($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id petId quantity complete pet { id name category { id name } } } }';

export const W6_QUERY =
  'query W6($first: Int!, $pets: Int!) { categories(first: $first) { nodes { id name pets(first: $pets) { nodes { id name status inventory { quantity } } } } } }';

export const W2_PAGE = 50;
/** W6: this many categories, each with this many of its first pets. */
export const W6_PAGE = 10;
export const W3_PAGE = 20;

export interface Workload {
  id: WorkloadId;
  title: string;
  /** Read workloads are interleaved in rounds; W4 writes and runs after them. */
  writes: boolean;
  /** Measured on PGlite too (issue: W1/W2). */
  onPglite: boolean;
  /** Only these targets are asked it (every target that offers the requests otherwise). */
  targets?: string[];
}

export const WORKLOADS: Workload[] = [
  { id: 'W1', title: 'pet(id)', writes: false, onPglite: true },
  { id: 'W2', title: `pets(first: ${W2_PAGE}) with category and inventory`, writes: false, onPglite: true },
  { id: 'W3', title: `orders(first: ${W3_PAGE}) with pet and its category`, writes: false, onPglite: false },
  { id: 'W5', title: 'REST GET /pets/{id}', writes: false, onPglite: false },
  {
    id: 'W6',
    title: `${W6_PAGE} categories with their first ${W6_PAGE} pets and inventory`,
    writes: false,
    onPglite: false,
  },
  { id: 'W4', title: 'placeOrder at 32 connections over 100 pets', writes: true, onPglite: false },
  {
    id: 'W7',
    title: 'placeOrder selecting its pet and category (payload relations), as W4',
    writes: true,
    onPglite: false,
    targets: ['T3', 'T3base'],
  },
  {
    id: 'WG',
    title: 'generated read shapes (test/helpers/query-generator.ts)',
    writes: false,
    onPglite: true,
    // T2 on the shapes it answers alike (bench/generated.ts); never T0 or T1 (hand-written servers).
    targets: ['T2', 'T3', 'T3base'],
  },
];

/** An HTTP request of a workload, as the load generator and the verifier send it. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export const graphqlBody = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });

/** WG's requests: made per database by bench/generated.ts once the targets are up. */
let generatedRequests: RequestSpec[] = [];

/** Sets the requests WG rotates through (bench/generated.ts). */
export function setGeneratedRequests(specs: RequestSpec[]): void {
  generatedRequests = specs;
}

/** How many requests WG rotates through. */
export const generatedRequestCount = (): number => generatedRequests.length;

/**
 * The i-th request of a workload. W1 and W5 walk over every pet, W4 over the 100 pets kept for it
 * (ids 1..100), so no answer is served from one hot row or one cached key.
 */
export function requestFor(workload: WorkloadId, i: number, data: { pets: number; w4Pets: number }): RequestSpec {
  switch (workload) {
    case 'W1':
      return { method: 'POST', path: '/graphql', body: graphqlBody(W1_QUERY, { id: String(1 + (i % data.pets)) }) };
    case 'W2':
      return { method: 'POST', path: '/graphql', body: graphqlBody(W2_QUERY, { first: W2_PAGE }) };
    case 'W3':
      return { method: 'POST', path: '/graphql', body: graphqlBody(W3_QUERY, { first: W3_PAGE }) };
    case 'W4':
      return {
        method: 'POST',
        path: '/graphql',
        body: graphqlBody(W4_MUTATION, { petId: String(1 + (i % data.w4Pets)) }),
      };
    case 'W7':
      return {
        method: 'POST',
        path: '/graphql',
        body: graphqlBody(W7_MUTATION, { petId: String(1 + (i % data.w4Pets)) }),
      };
    case 'W5':
      return { method: 'GET', path: `/pets/${1 + (i % data.pets)}` };
    case 'W6':
      return { method: 'POST', path: '/graphql', body: graphqlBody(W6_QUERY, { first: W6_PAGE, pets: W6_PAGE }) };
    case 'WG':
      if (!generatedRequests.length) throw new Error('WG: no generated requests (bench/generated.ts)');
      return generatedRequests[i % generatedRequests.length]!;
  }
}
