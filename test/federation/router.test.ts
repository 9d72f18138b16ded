/**
 * Composition, for real: the gateway as a process with GRAPHQL_FEDERATION=true, the test-only
 * reviews subgraph (@apollo/subgraph), and federation/router.js (Apollo's gateway from the npm
 * registry) as a process serving the committed federation/supergraph.graphql. Queries cross the two
 * subgraphs both ways, with the client's API key forwarded by the router.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createApiKeyWithCli } from '../helpers/server-process';
import { gql, startGateway, type GatewayFixture, type Reply } from '../helpers/gateway-fixture';
import { startReviewsSubgraph, type ReviewsSubgraph } from './reviews-subgraph';

const root = path.resolve(__dirname, '..', '..');

interface Compose {
  composeSupergraph(): Promise<string>;
  SUPERGRAPH_FILE: string;
}
// federation/compose.js is the npm script's own file (plain CommonJS over dist/): the test runs it as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compose = require(path.join(root, 'federation', 'compose.js')) as Compose;

interface Router {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts federation/router.js on a free port, pointed at the two subgraphs. */
async function startRouter(env: Record<string, string>): Promise<Router> {
  const child = spawn(process.execPath, [path.join(root, 'federation', 'router.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, ROUTER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`router did not start within 30 s: ${stderr}`)), 30_000);
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      const ready = /router ready at (\S+)/.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1]!.replace(/\/$/, ''));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`router exited with ${code}: ${stderr}`));
    });
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function viaRouter(router: Router, query: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(router.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, ...((await res.json()) as Omit<Reply, 'status'>) };
}

describe('the committed supergraph', () => {
  it('is what the code composes today (npm run supergraph:compose)', async () => {
    const committed = fs.readFileSync(compose.SUPERGRAPH_FILE, 'utf8');
    expect(await compose.composeSupergraph()).toBe(committed);
  });
});

describe('the petstore subgraph behind a real router', () => {
  let petstore: GatewayFixture;
  let reviews: ReviewsSubgraph;
  let router: Router;
  let catalogKey: Record<string, string>;
  let readerKey: Record<string, string>;
  const ids: Record<'rex' | 'tom' | 'kit', string> = { rex: '', tom: '', kit: '' };
  let orderId: string;

  const admin = async (query: string, variables: Record<string, unknown> = {}) => {
    const reply = await gql(petstore.server.url, query, variables, petstore.admin);
    if (reply.errors) throw new Error(JSON.stringify(reply.errors));
    return reply.data!;
  };

  beforeAll(async () => {
    petstore = await startGateway({ GRAPHQL_FEDERATION: 'true' });
    catalogKey = await createApiKeyWithCli(['catalog:write'], petstore.env);
    readerKey = await createApiKeyWithCli(['orders:read'], petstore.env);
    const dogs = (await admin('mutation { createCategory(input: { name: "Dogs" }) { id } }')).createCategory.id;
    const cats = (await admin('mutation { createCategory(input: { name: "Cats" }) { id } }')).createCategory.id;
    for (const [name, category] of [
      ['rex', dogs],
      ['tom', cats],
      ['kit', cats],
    ] as const) {
      const created = await admin(
        'mutation($n: String!, $c: ID!) { createPet(input: { name: $n, categoryId: $c }) { id } }',
        {
          n: name,
          c: category,
        },
      );
      ids[name] = created.createPet.id;
    }
    await admin('mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 5 }) { quantity } }', {
      p: ids.tom,
    });
    orderId = (
      await admin('mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 2 }) { id } }', { p: ids.tom })
    ).placeOrder.id;
    reviews = await startReviewsSubgraph([
      { petId: ids.rex, stars: 5 },
      { petId: ids.tom, stars: 4 },
      { petId: ids.rex, stars: 2 },
    ]);
    router = await startRouter({ PETSTORE_URL: `${petstore.server.url}/graphql`, REVIEWS_URL: reviews.url });
    // Three processes and two CLI runs on a shared two-core machine.
  }, 240_000);
  afterAll(async () => {
    await router?.stop();
    await reviews?.stop();
    await petstore?.dispose();
  });

  it('answers reviews with their pets from the petstore (reviews -> _entities on the petstore)', async () => {
    const reply = await viaRouter(router, '{ topReviews(first: 3) { stars pet { id name category { name } } } }');
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({
      topReviews: [
        { stars: 5, pet: { id: ids.rex, name: 'rex', category: { name: 'Dogs' } } },
        { stars: 4, pet: { id: ids.tom, name: 'tom', category: { name: 'Cats' } } },
        { stars: 2, pet: { id: ids.rex, name: 'rex', category: { name: 'Dogs' } } },
      ],
    });
  });

  it('answers pets with their reviews from the reviews subgraph (petstore -> _entities on reviews)', async () => {
    const reply = await viaRouter(router, '{ pets(first: 10) { nodes { name reviews { stars pet { name } } } } }');
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({
      pets: {
        nodes: [
          {
            name: 'rex',
            reviews: [
              { stars: 5, pet: { name: 'rex' } },
              { stars: 2, pet: { name: 'rex' } },
            ],
          },
          { name: 'tom', reviews: [{ stars: 4, pet: { name: 'tom' } }] },
          { name: 'kit', reviews: [] },
        ],
      },
    });
  });

  it('forwards the API key: an order with its pet and reviews, for a key with orders:read', async () => {
    const seen = reviews.authorizations.length;
    const reply = await viaRouter(
      router,
      `{ order(id: "${orderId}") { quantity pet { name reviews { stars } } } }`,
      readerKey,
    );
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ order: { quantity: 2, pet: { name: 'tom', reviews: [{ stars: 4 }] } } });
    expect(reviews.authorizations.slice(seen)).toContain(readerKey.authorization);
  });

  it.each([
    ['anonymous', 'none'],
    ['a key without orders:read', 'catalog'],
  ])('refuses the order %s as the subgraph itself does', async (_who, key) => {
    const headers = key === 'catalog' ? catalogKey : {};
    const query = `{ order(id: "${orderId}") { quantity pet { name reviews { stars } } } }`;
    // The same order asked of the petstore itself (which has no reviews).
    const direct = await gql(petstore.server.url, query.replace(' reviews { stars }', ''), {}, headers);
    const routed = await viaRouter(router, query, headers);
    expect(direct.errors?.[0]?.extensions.code).toMatch(/^(UNAUTHENTICATED|FORBIDDEN)$/);
    expect(routed.data).toEqual({ order: null });
    const error = routed.errors?.[0] as unknown as {
      extensions: { code: string; response: { status: number; body: Reply } };
    };
    expect(error.extensions.code).toBe(direct.errors![0]!.extensions.code);
    expect(error.extensions.response.status).toBe(direct.status);
    expect(error.extensions.response.body.errors).toEqual(direct.errors);
  });

  it.each([
    ['a malformed id', '{ pet(id: "abc") { name } }', 'VALIDATION_FAILED'],
    ['an id past 64 bits', '{ pet(id: "99999999999999999999") { name } }', 'VALIDATION_FAILED'],
  ])(
    "passes on the subgraph's refusal of %s with its message and code, not INTERNAL_SERVER_ERROR",
    async (_what, query, code) => {
      const direct = await gql(petstore.server.url, query);
      const routed = await viaRouter(router, query);
      expect(direct.status).toBe(400);
      expect(direct.errors?.[0]?.extensions.code).toBe(code);
      expect(routed.data).toEqual({ pet: null });
      expect(routed.errors?.[0]).toMatchObject({
        message: direct.errors![0]!.message,
        extensions: { code, status: 400 },
      });
    },
  );

  it("sends no stack traces of its own with the subgraphs' errors", async () => {
    const reply = await viaRouter(router, '{ pet(id: "abc") { name } order(id: "1") { id } }');
    expect(reply.errors?.length).toBeGreaterThan(0);
    for (const error of reply.errors!) expect(error.extensions).not.toHaveProperty('stacktrace');
  });

  it('does not run subscriptions: they stay on the subgraph (docs/federation.md)', async () => {
    const reply = await viaRouter(router, 'subscription { stockChanged { petId quantity } }');
    expect(reply.data ?? null).toBeNull();
    expect(reply.errors?.length).toBeGreaterThan(0);
  });
});

/** A query through `router` sent from `localAddress` (another loopback address: another client). */
async function fromAddress(router: Router, localAddress: string, query: string): Promise<Reply> {
  const body = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const req = http.request(
      router.url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, ...(JSON.parse(text) as Omit<Reply, 'status'>) }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

describe("the router and the petstore's rate limit", () => {
  let petstore: GatewayFixture;
  let router: Router;

  beforeAll(async () => {
    // The petstore trusts the router (on loopback) to name the client, as docs/federation.md says.
    petstore = await startGateway({ GRAPHQL_FEDERATION: 'true', RATE_LIMIT_MAX: '3', TRUST_PROXY: 'loopback' });
    // No reviews subgraph: the queries below ask the petstore alone.
    router = await startRouter({ PETSTORE_URL: `${petstore.server.url}/graphql`, REVIEWS_URL: 'http://127.0.0.1:9/' });
  }, 240_000);
  afterAll(async () => {
    await router?.stop();
    await petstore?.dispose();
  });

  it('counts each anonymous client apart: one over its limit does not throttle another', async () => {
    const query = '{ pets(first: 1) { totalCount } }';
    const first: Reply[] = [];
    for (let i = 0; i < 4; i++) first.push(await fromAddress(router, '127.0.0.2', query));
    expect(first.slice(0, 3).map((r) => r.errors)).toEqual([undefined, undefined, undefined]);
    expect(first[3]!.errors?.[0]?.extensions.code).toBe('RATE_LIMITED');
    const other = await fromAddress(router, '127.0.0.3', query);
    expect(other.errors).toBeUndefined();
    expect(other.data).toEqual({ pets: { totalCount: 0 } });
  });
});
