/**
 * The two clients web developers use subscribe with the configuration the README shows: Apollo
 * Client's GraphQLWsLink and urql's subscriptionExchange, both over a graphql-ws client, against a
 * server listening on a real port.
 */
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client as UrqlClient, subscriptionExchange } from '@urql/core';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createTestApp, type TestApp, type TypedDocument } from '../helpers/test-app';
import { until } from '../helpers/ws-client';

const doc = (text: string) => text as unknown as TypedDocument<any, any>;
const ORDERS = 'subscription($p: [ID!]) { orderEvents(petIds: $p) { kind order { id quantity } } }';

let t: TestApp;
let wsUrl: string;
let petId: string;

beforeAll(async () => {
  t = await createTestApp({ auth: 'admin' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  wsUrl = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}/graphql`;
  const { createCategory } = await t.gqlOk(doc('mutation { createCategory(input: { name: "Clients" }) { id } }'));
  const { createPet } = await t.gqlOk(
    doc('mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }'),
    { c: createCategory.id },
  );
  petId = createPet.id;
  await t.gqlOk(doc('mutation($p: ID!) { updateInventory(petId: $p, input: { quantity: 10 }) { quantity } }'), {
    p: petId,
  });
});

afterAll(async () => {
  await t?.close();
});

const placeOne = async () =>
  (await t.gqlOk(doc('mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id } }'), { p: petId }))
    .placeOrder.id as string;

it('Apollo Client subscribes through GraphQLWsLink with the key in connectionParams', async () => {
  const ws = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: t.admin.authorization },
  });
  const client = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  const received: unknown[] = [];
  const sub = client
    .subscribe({ query: gql(ORDERS), variables: { p: [petId] } })
    .subscribe({ next: (r) => received.push(r.data) });
  await until(() => t.app.subscriptions.subscriptionCount === 1);
  const id = await placeOne();
  await until(() => received.length === 1);
  expect(received[0]).toEqual({
    orderEvents: { __typename: 'OrderEvent', kind: 'PLACED', order: { __typename: 'Order', id, quantity: 1 } },
  });
  sub.unsubscribe();
  await ws.dispose();
  await until(() => t.app.subscriptions.subscriptionCount === 0);
});

it('urql subscribes through subscriptionExchange over graphql-ws', async () => {
  const ws = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: t.admin.authorization },
  });
  const client = new UrqlClient({
    url: wsUrl.replace('ws', 'http'),
    exchanges: [
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  const received: unknown[] = [];
  const { unsubscribe } = client.subscription(ORDERS, { p: [petId] }).subscribe((r) => received.push(r.data));
  await until(() => t.app.subscriptions.subscriptionCount === 1);
  const id = await placeOne();
  await until(() => received.length === 1);
  expect(received[0]).toMatchObject({ orderEvents: { kind: 'PLACED', order: { id, quantity: 1 } } });
  unsubscribe();
  await ws.dispose();
});
