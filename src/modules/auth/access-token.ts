/**
 * Access tokens (JWTs) from an OpenID Connect provider, and development tokens (`npm run token`),
 * verified into a TokenCaller (docs/identity.md).
 *
 * Verification is `jose`'s (a well-kept library; nothing here re-implements JOSE):
 * - the provider's keys come from its JWKS (`AUTH_JWT_JWKS_URL`, or the `jwks_uri` of
 *   `<issuer>/.well-known/openid-configuration`, discovered on the first token, never at start, so
 *   a provider that is down stops nobody from starting or using API keys). `createRemoteJWKSet`
 *   caches the set, refetches it when a token names a `kid` it does not hold (a rotation needs no
 *   restart) and at most once per cool-down, so a stream of made-up kids cannot make the gateway
 *   hammer the provider;
 * - `jwtVerify` checks the signature with asymmetric algorithms only (`none` and HMAC are refused:
 *   an HMAC "key" would be a public key used as a shared secret), `iss`, `aud`, `exp` (required) and
 *   `nbf` with a small clock tolerance, and `sub` (required).
 * - the header's `typ` must be RFC 9068's `at+jwt` (or `application/at+jwt`), plain `JWT`, or absent
 *   (several providers send no typ): anything else (an ID token marked so, a logout token) is refused.
 *
 * Outcomes: a TokenCaller; or UNAUTHENTICATED (401, `WWW-Authenticate: Bearer error="invalid_token"`)
 * naming what is wrong; or, when the provider cannot be reached to fetch keys the token needs,
 * UNAVAILABLE (503, Retry-After), after at most AUTH_JWT_FETCH_TIMEOUT_MS: never a 500, never a hang.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { AuthConfig } from '../../config';
import { UnauthenticatedError, UnavailableError } from '../../errors/app-error';
import { callerIdentity, IDENTITY_MAX_LENGTH, type TokenCaller } from './caller';
import { DEV_TOKEN_ISSUER, loadOrCreateDevKey } from './dev-token';
import { SCOPES, type Scope } from '../../common/scopes';

/** Asymmetric signatures only: RSA (PKCS#1 v1.5 and PSS), ECDSA, EdDSA. */
export const TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

/** What a subject cannot be stored as (orders.owner, text): NUL, or an unpaired surrogate (the `u` flag pairs the rest). */
const UNSTORABLE = /[\0\uD800-\uDFFF]/u;

/**
 * Why a subject of `issuer` can own no order, or null when it can: the verifier refuses its tokens
 * for it, and `npm run token` refuses to sign one (dev-token.cli.ts). Said after "the subject".
 */
export function subjectRefusal(issuer: string, subject: string): string | null {
  // The identity is what an order records as its owner: one too long for that column would fail
  // the caller's first order with a database error (a 500), so the token is refused up front.
  if (callerIdentity({ kind: 'token', issuer, subject, scopes: [] }).length > IDENTITY_MAX_LENGTH)
    return `is too long (its issuer and sub at most ${IDENTITY_MAX_LENGTH} characters)`;
  // Nor can the column hold a NUL (a database error at the first read or order: a 500), and a lone
  // UTF-16 surrogate (valid as a JSON escape) is stored as U+FFFD: "a\ud800", "a\udc00" and "a\ufffd"
  // would be one owner, each seeing the others' orders. Such a subject is refused.
  if (UNSTORABLE.test(subject)) return 'holds a NUL character or an unpaired UTF-16 surrogate';
  return null;
}

/** A compact JWS: three base64url parts. API keys (`pk_...`) never look like one. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(credential: string): boolean {
  return JWT_SHAPE.test(credential);
}

export interface TokenVerifier {
  /** The caller a token stands for; throws UnauthenticatedError (invalid_token) or UnavailableError. */
  verify(token: string): Promise<TokenCaller>;
}

/**
 * Scopes granted by a token: the `scope` string (RFC 9068, Auth0, Okta, Keycloak) and/or `scp`
 * (Entra ID: a string; some providers: a list). Only this API's scopes count; `openid`, `profile`
 * and the like are ignored.
 */
export function tokenScopes(payload: JWTPayload): Scope[] {
  const words: string[] = [];
  for (const claim of [payload.scope, payload.scp]) {
    // RFC 6749 (3.3): scopes are apart by spaces (%x20) and hold none; any other whitespace is part
    // of a scope, so "reports<TAB>admin" is one scope of the provider's, not `admin`.
    if (typeof claim === 'string') words.push(...claim.split(' '));
    else if (Array.isArray(claim)) words.push(...claim.filter((w): w is string => typeof w === 'string'));
  }
  return [...new Set(words.filter((w): w is Scope => (SCOPES as readonly string[]).includes(w)))];
}

const invalid = (message: string) => new UnauthenticatedError(message, true);

/** One trusted issuer: its keys and audience. */
interface Issuer {
  issuer: string;
  audience: string;
  clockToleranceS: number;
  keys: () => Promise<JWTVerifyGetKey>;
}

type Jose = typeof import('jose');

/** A string from an unverified token, quoted for an error message, cut to a length a message can carry. */
const quoted = (value: string): string => JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);

/**
 * The verifier of the configured issuers, or null when none is (API keys only). jose is an ES
 * module: loaded with `import()` once here (the service is CommonJS; Jest's CommonJS runtime cannot
 * `require` an ES module).
 */
export async function createTokenVerifier(auth: AuthConfig, log: FastifyBaseLogger): Promise<TokenVerifier | null> {
  if (!auth.jwt && !auth.dev) return null;
  const jose: Jose = await import('jose');
  const issuers = new Map<string, Issuer>();
  if (auth.jwt) {
    const { issuer, audience, jwksUrl, clockToleranceS, fetchTimeoutMs, cooldownMs } = auth.jwt;
    issuers.set(issuer, {
      issuer,
      audience,
      clockToleranceS,
      keys: remoteKeys(jose, { issuer, jwksUrl, fetchTimeoutMs, cooldownMs }, log),
    });
  }
  if (auth.dev) {
    const key = await loadOrCreateDevKey(auth.dev.keyFile);
    const local = jose.createLocalJWKSet({ keys: [key.publicJwk] });
    issuers.set(DEV_TOKEN_ISSUER, {
      issuer: DEV_TOKEN_ISSUER,
      audience: auth.dev.audience,
      clockToleranceS: 30,
      keys: () => Promise.resolve(local),
    });
    log.warn(
      { keyFile: auth.dev.keyFile },
      'AUTH_DEV_TOKENS is on: development tokens (npm run token) are trusted; never in production',
    );
  }
  return {
    async verify(token) {
      let claimed: unknown;
      let header: ReturnType<Jose['decodeProtectedHeader']>;
      try {
        claimed = jose.decodeJwt(token).iss;
        header = jose.decodeProtectedHeader(token);
      } catch {
        throw invalid('The access token is malformed (not a signed JWT)');
      }
      // Both are read before the signature is checked: anyone can send any JSON in them, so they are
      // only compared (never assumed strings) and only echoed when they are short strings.
      if (typeof claimed !== 'string') throw invalid("The access token's issuer (iss) is missing or not a string");
      const trusted = issuers.get(claimed);
      if (!trusted) throw invalid(`The access token's issuer (iss) is not trusted here: ${quoted(claimed)}`);
      const typ: unknown = header.typ;
      if (typ !== undefined && (typeof typ !== 'string' || !ACCEPTED_TYP.has(typ.toLowerCase())))
        throw invalid(
          `The token's type (typ ${typeof typ === 'string' ? quoted(typ) : `of type ${typeof typ}`}) is not an access token (at+jwt or JWT)`,
        );
      let getKey: JWTVerifyGetKey;
      let payload: JWTPayload;
      try {
        getKey = await trusted.keys();
        ({ payload } = await jose.jwtVerify(token, getKey, {
          issuer: trusted.issuer,
          audience: trusted.audience,
          algorithms: TOKEN_ALGORITHMS,
          clockTolerance: trusted.clockToleranceS,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch (error) {
        throw explain(error, log);
      }
      // Keycloak's header says JWT for every token it signs; which one it is, it says in a `typ` claim:
      // `Bearer` for an access token, `ID` for an ID token (and `Logout`, `Refresh`...).
      const kind: unknown = payload.typ;
      if (kind !== undefined && (typeof kind !== 'string' || kind.toLowerCase() !== 'bearer'))
        throw invalid(
          `The token's type (typ claim ${typeof kind === 'string' ? quoted(kind) : `of type ${typeof kind}`}) is not an access token (Bearer)`,
        );
      if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('The access token has no subject (sub)');
      const caller: TokenCaller = {
        kind: 'token',
        issuer: trusted.issuer,
        subject: payload.sub,
        scopes: tokenScopes(payload),
        // Accepted until exp plus the tolerance (jose's check above): a connection lives as long.
        expiresAt: (payload.exp! + trusted.clockToleranceS) * 1000,
      };
      const refused = subjectRefusal(caller.issuer, caller.subject);
      if (refused) throw invalid(`The access token's subject (sub) ${refused}`);
      return caller;
    },
  };
}

/**
 * The provider's key set, found (once) through discovery unless its URL is configured. A failed
 * discovery is retried by the next token, but at most once a second, so an outage costs each request
 * a fast 503 rather than a connection attempt.
 */
function remoteKeys(
  jose: Jose,
  opts: { issuer: string; jwksUrl: string | null; fetchTimeoutMs: number; cooldownMs: number },
  log: FastifyBaseLogger,
): () => Promise<JWTVerifyGetKey> {
  const make = (url: string) => keySet(jose, url, opts, log);
  let keys: JWTVerifyGetKey | null = opts.jwksUrl ? make(opts.jwksUrl) : null;
  let pending: Promise<JWTVerifyGetKey> | null = null;
  let failedAt = 0;
  return async () => {
    if (keys) return keys;
    if (Date.now() - failedAt < 1_000) throw unavailable();
    pending ??= discover(opts.issuer, opts.fetchTimeoutMs)
      .then((url) => {
        log.info({ issuer: opts.issuer, jwksUri: url }, 'identity provider discovered');
        return (keys = make(url));
      })
      .catch((error: unknown) => {
        failedAt = Date.now();
        log.warn({ err: error, issuer: opts.issuer }, 'identity provider discovery failed; retried on the next token');
        throw unavailable();
      })
      .finally(() => (pending = null));
    return pending;
  };
}

/** How old the key set may grow before it is fetched again (in the background). */
const REFRESH_MS = 10 * 60_000;

/**
 * The key set at `url`: jose's remote set, whose fetches are driven here, because jose's own rules
 * fail a provider outage the wrong way: past its cache age (ten minutes) it refetches before every
 * verification and fails the token when that fetch fails (every token 503, signed with a key held or
 * not), and its cool-down counts from the last successful fetch only (while the provider fails, every
 * token with a made-up kid fetched again). Here:
 * - the first fetch is made by the first token (at most once a second while it fails);
 * - a token naming a kid the set does not hold refetches it, at most once per cool-down counted from
 *   the last attempt, successful or not;
 * - after ten minutes the set is refetched in the background: the keys held keep verifying tokens
 *   meanwhile, and after a failed fetch.
 */
function keySet(
  jose: Jose,
  url: string,
  opts: { fetchTimeoutMs: number; cooldownMs: number },
  log: FastifyBaseLogger,
): JWTVerifyGetKey {
  // Infinity: jose fetches by itself only while it holds no set; every other fetch is `refetch`'s.
  const set = jose.createRemoteJWKSet(new URL(url), {
    timeoutDuration: opts.fetchTimeoutMs,
    cooldownDuration: Infinity,
    cacheMaxAge: Infinity,
  });
  let held = false;
  let attemptedAt = -Infinity;
  let failed = false;
  let pending: Promise<void> | null = null;
  const refetch = (): Promise<void> => {
    if (pending) return pending;
    attemptedAt = Date.now();
    return (pending = set
      .reload()
      .then(
        () => {
          held = true;
          failed = false;
        },
        (error: unknown) => {
          failed = true;
          throw error;
        },
      )
      .finally(() => (pending = null)));
  };
  return async (header, token) => {
    if (!held) {
      if (!pending && Date.now() - attemptedAt < 1_000) throw unavailable();
      await refetch();
    } else if (!pending && Date.now() - attemptedAt >= REFRESH_MS) {
      refetch().catch((error: unknown) =>
        log.warn(
          { err: error, jwksUri: url },
          'identity provider keys could not be refreshed; the keys held still verify',
        ),
      );
    }
    try {
      return await set(header, token);
    } catch (error) {
      const unknownKid = (error as { code?: unknown }).code === 'ERR_JWKS_NO_MATCHING_KEY';
      if (!unknownKid) throw error;
      if (!pending && Date.now() - attemptedAt < opts.cooldownMs) {
        // The key may be new at a provider the last fetch could not reach: that is no bad token.
        throw failed ? unavailable() : error;
      }
      await refetch();
      return set(header, token);
    }
  };
}

/** `jwks_uri` of the issuer's OpenID configuration, which must name the same issuer. */
async function discover(issuer: string, timeoutMs: number): Promise<string> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  const body = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (body.issuer !== issuer) throw new Error(`${url} names another issuer: ${JSON.stringify(body.issuer)}`);
  if (typeof body.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`);
  return body.jwks_uri;
}

const unavailable = () =>
  new UnavailableError(
    "The identity provider's signing keys could not be fetched; retry shortly (API keys still work)",
    'identity provider',
  );

/** jose's verdict as this API's error: what the client sent is wrong (401), or the provider is away (503). */
function explain(error: unknown, log: FastifyBaseLogger): Error {
  if (error instanceof UnavailableError) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalid('The access token has expired (exp)');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const { claim, reason } = error as { claim?: string; reason?: string };
      if (claim === 'nbf') return invalid('The access token is not valid yet (nbf)');
      return invalid(`The access token's ${claim ?? 'claims'} claim is not accepted here (${reason ?? 'invalid'})`);
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalid(`The access token's algorithm is not accepted here (only ${TOKEN_ALGORITHMS.join(', ')})`);
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalid("No signing key of the issuer matches the access token's key id (kid)");
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalid("The access token's signature is not valid");
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
    case 'ERR_JWK_INVALID':
      return invalid(`The access token is not valid: ${(error as Error).message}`);
    default:
      // ERR_JWKS_TIMEOUT, a JWKS that is not 200 or not a key set, a refused connection: the provider.
      log.warn({ err: error }, 'identity provider keys unavailable');
      return unavailable();
  }
}
