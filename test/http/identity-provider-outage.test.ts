/**
 * A provider that fails after the gateway has its keys (docs/identity.md, "When the provider is
 * down"): tokens signed with keys it already holds keep working, however long the outage lasts (the
 * ten-minute refresh included), and a stream of made-up key ids does not make the gateway fetch the
 * key set more than once per cool-down while the provider fails.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider';
import { postGraphql as gql } from '../helpers/http-graphql';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ME = '{ me { subject } }';
const COOLDOWN_MS = 3_000;

let idp: IdentityProvider;
let db: TestDatabase;
let t: ListeningApp;
beforeAll(async () => {
  idp = await startIdentityProvider();
  db = await createTestDatabase();
  t = await createListeningApp({
    database: db,
    env: {
      AUTH_JWT_ISSUER: idp.issuer,
      AUTH_JWT_AUDIENCE: idp.audience,
      AUTH_JWT_FETCH_TIMEOUT_MS: '500',
      AUTH_JWKS_COOLDOWN_MS: String(COOLDOWN_MS),
    },
  });
  // The keys are fetched once, by a good token.
  expect((await gql(t.url, ME, {}, bearer(await idp.sign({ sub: 'alice', expiresIn: 3600 })))).status).toBe(200);
}, 120_000);
afterEach(async () => {
  jest.restoreAllMocks();
  await idp.setMode('up');
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
  await db?.destroy();
});

it('a stream of made-up kids while the provider fails: at most one fetch per cool-down', async () => {
  await new Promise((r) => setTimeout(r, COOLDOWN_MS + 100)); // past the cool-down since the first fetch
  await idp.setMode('hang');
  const before = idp.fetches.jwks;
  const started = Date.now();
  for (let i = 0; i < 6; i++) {
    const answer = await gql(t.url, ME, {}, bearer(await idp.sign({ kid: `made-up-${i}` })));
    // The key may be new at a provider that cannot be reached: 503, not a bad token.
    expect(answer.status).toBe(503);
  }
  // One fetch, and one more per cool-down the loop outlasted (a loaded machine can make it slow).
  expect(idp.fetches.jwks - before).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / COOLDOWN_MS));
});

it('keys held keep verifying tokens past the ten-minute refresh while the provider fails', async () => {
  await idp.setMode('hang');
  const token = await idp.sign({ sub: 'bob', expiresIn: 3600 });
  const now = Date.now();
  jest.spyOn(Date, 'now').mockImplementation(() => now + 11 * 60_000);
  const answer = await gql(t.url, ME, {}, bearer(token));
  expect(answer.status).toBe(200);
  expect(answer.body.data.me.subject).toBe('bob');
});
