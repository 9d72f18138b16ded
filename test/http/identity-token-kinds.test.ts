/**
 * Keycloak's kinds of token (docs/identity.md, Keycloak: "its ID tokens `typ: ID`, which the gateway
 * refuses"): Keycloak's header says `typ: JWT` for every token it signs and names the kind in a `typ`
 * claim (`Bearer` for an access token, `ID` for an ID token). An ID token is refused with 401
 * invalid_token, even when its audience would pass; an access token is accepted.
 */
import { createListeningApp, type ListeningApp } from '../helpers/listening-app';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider';
import { postGraphql as gql } from '../helpers/http-graphql';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ME = '{ me { subject } }';

let idp: IdentityProvider;
let db: TestDatabase;
let t: ListeningApp;
beforeAll(async () => {
  idp = await startIdentityProvider();
  db = await createTestDatabase();
  t = await createListeningApp({ database: db, env: { AUTH_JWT_ISSUER: idp.issuer, AUTH_JWT_AUDIENCE: idp.audience } });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await idp?.close();
  await db?.destroy();
});

/** A token as Keycloak signs it: header `typ: JWT`, the kind in the `typ` claim. */
const keycloak = (kind: unknown) => {
  const key = idp.published[0]!;
  return new idp.jose.SignJWT({ typ: kind, azp: 'shop-app' } as never)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(idp.issuer)
    .setAudience(['shop-app', idp.audience])
    .setSubject('alice')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key.privateKey);
};

it.each([['ID'], ['Refresh'], ['Logout'], [7]])('a token whose typ claim is %p is refused with 401', async (kind) => {
  const answer = await gql(t.url, ME, {}, bearer(await keycloak(kind)));
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(answer.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', status: 401 });
  expect(answer.body.errors[0].message).toMatch(/typ claim .* is not an access token/);
});

it("Keycloak's access token (typ claim Bearer) signs in", async () => {
  const answer = await gql(t.url, ME, {}, bearer(await keycloak('Bearer')));
  expect(answer.body).toEqual({ data: { me: { subject: 'alice' } } });
});
