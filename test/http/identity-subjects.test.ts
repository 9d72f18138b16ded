/**
 * Subjects that the orders' owner column cannot hold as they are (docs/identity.md: `iss` + `sub` is
 * who the person is, recorded as the owner of their orders): a NUL character (a database error) or
 * an unpaired UTF-16 surrogate (valid JSON escapes, stored as U+FFFD, so distinct subjects would
 * share one owner). Such a token is refused with 401 invalid_token, never a 500, never another's orders.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { makePet } from '../helpers/factories';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider';
import { postGraphql as gql } from '../helpers/http-graphql';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const PLACE = 'mutation ($petId: ID!) { placeOrder(input: { petId: $petId, quantity: 1 }) { id } }';
const ORDERS = '{ orders(first: 100) { totalCount nodes { id } } }';

let idp: IdentityProvider;
let db: TestDatabase;
let t: ListeningApp;
let petId: string;
beforeAll(async () => {
  idp = await startIdentityProvider();
  db = await createTestDatabase();
  t = await createListeningApp({
    database: db,
    env: { AUTH_JWT_ISSUER: idp.issuer, AUTH_JWT_AUDIENCE: idp.audience },
  });
  petId = (await makePet(t, { stock: 20 })).id.toString();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await idp?.close();
  await db?.destroy();
});

it.each([
  ['a NUL character', 'al\u0000ice'],
  ['an unpaired high surrogate', 'zed\ud800'],
  ['an unpaired low surrogate', 'zed\udc00'],
])('a subject with %s is refused with 401 on every path', async (_name, sub) => {
  const token = bearer(await idp.sign({ sub }));
  for (const answer of [await gql(t.url, ORDERS, {}, token), await gql(t.url, PLACE, { petId }, token)]) {
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(answer.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
    expect(answer.body.errors[0].message).toMatch(/subject \(sub\)/);
  }
  const rest = await fetch(`${t.url}/store/orders`, { headers: token });
  expect(rest.status).toBe(401);
});

it('subjects that differ only in unpaired surrogates never share orders', async () => {
  const owner = bearer(await idp.sign({ sub: 'zed\ufffd' }));
  const placed = await gql(t.url, PLACE, { petId }, owner);
  expect(placed.body.errors).toBeUndefined();
  // Another person whose subject the database would store as the same text.
  const other = await gql(t.url, ORDERS, {}, bearer(await idp.sign({ sub: 'zed\udc00' })));
  expect(other.body.data?.orders.nodes ?? []).not.toContainEqual({ id: placed.body.data.placeOrder.id });
  // A subject with a proper surrogate pair (an emoji) is an ordinary subject.
  const emoji = await gql(t.url, ORDERS, {}, bearer(await idp.sign({ sub: 'zed\ud83d\ude00' })));
  expect(emoji.body.data.orders.totalCount).toBe(0);
});
