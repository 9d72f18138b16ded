/**
 * `@skip` and `@include` on the root field of a subscription (graphql-js 16 threw on them: a
 * skipped root field made `subscribe` throw, and a non-null variable in them made validation
 * throw). They are refused as graphql-js 17 and the specification's draft refuse them: a
 * validation error, over WebSocket as an `error` message on a connection that stays open, over
 * HTTP a 400; never INTERNAL, never the connection closed with 4500.
 */
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { connectWs, subscribe, until, type TestWsClient } from '../helpers/ws-client';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;

const CONDITIONAL: [string, Record<string, unknown>][] = [
  ['subscription { stockChanged @skip(if: true) { petId } }', {}],
  ['subscription ($s: Boolean!) { stockChanged @include(if: $s) { petId } }', { s: true }],
  ['subscription ($s: Boolean!) { stockChanged @include(if: $s) { petId } }', { s: false }],
  ['subscription S { ...F } fragment F on Subscription { stockChanged @skip(if: false) { petId } }', {}],
  ['subscription { ... @include(if: false) { stockChanged { petId } } }', {}],
];

let t: TestApp;
let url: string;
const open: TestWsClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ auth: 'admin' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as { port: number };
  url = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
  await until(() => t.app.subscriptions.connectionCount === 0);
  await t.close();
});

it('refuses @skip and @include on the root field over WebSocket, and the connection stays open', async () => {
  const c = connectWs(url);
  open.push(c);
  await c.connected;
  for (const [query, variables] of CONDITIONAL) {
    expect(await subscribe(c, query, variables).error).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/must not use `@skip` or `@include` directives in the top level selection/),
        extensions: { code: 'VALIDATION_FAILED', status: 400 },
      }),
    ]);
  }
  // The same connection still serves subscriptions.
  const live = subscribe(c, 'subscription { stockChanged { petId } }');
  await until(() => t.app.subscriptions.subscriptionCount === 1);
  live.unsubscribe();
  const closed = await Promise.race([c.closed, new Promise((r) => setTimeout(() => r('open'), 100))]);
  expect(closed).toBe('open');
});

it('answers the same documents POSTed over HTTP with 400, not 500', async () => {
  for (const [query, variables] of CONDITIONAL) {
    const reply = await t.gql(doc(query), variables);
    expect(reply.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'VALIDATION_FAILED', status: 400 }) }),
    ]);
  }
});
