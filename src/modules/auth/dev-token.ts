/**
 * Development tokens: sign in as anyone on your own machine, with no identity provider
 * (`npm run token -- alice`, docs/identity.md). They are ordinary JWT access tokens of the issuer
 * `urn:petstore:dev`, signed with an Ed25519 key kept in a file (AUTH_DEV_KEY_FILE, created on
 * first use, mode 0600). A server trusts them only with AUTH_DEV_TOKENS=true, which the
 * configuration refuses in production: whoever can read the file can be anyone.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JWK } from 'jose';
import type { Scope } from '../../common/scopes';
import { ConfigError } from '../../config';

/** The issuer (`iss`) of development tokens. */
export const DEV_TOKEN_ISSUER = 'urn:petstore:dev';

export interface DevKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/**
 * The development key in `file`, made there if there is none. Created with `wx` (exclusive): when a
 * server and `npm run token` start at once, one writes it and the other reads that one.
 */
export async function loadOrCreateDevKey(file: string): Promise<DevKey> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return createDevKey(file);
  }
  // A file that is not a key (empty, edited, another file) is a setting to fix, named: not a SyntaxError
  // with the runtime's own JSON.parse text (and, from npm run token, its stack).
  let key: Partial<DevKey> | null = null;
  try {
    key = JSON.parse(text) as Partial<DevKey>;
  } catch {
    // said below
  }
  if (typeof key?.kid !== 'string' || typeof key.privateJwk !== 'object' || typeof key.publicJwk !== 'object')
    throw new ConfigError([
      {
        setting: 'AUTH_DEV_KEY_FILE',
        message: `${file} does not hold a development key (the JSON that npm run token writes); remove it, and a new key is made on first use`,
      },
    ]);
  return key as DevKey;
}

async function createDevKey(file: string): Promise<DevKey> {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const kid = `dev-${crypto.randomBytes(6).toString('hex')}`;
  const key: DevKey = {
    kid,
    privateJwk: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg: 'EdDSA' },
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'EdDSA', use: 'sig' },
  };
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  try {
    await fs.promises.writeFile(file, JSON.stringify(key, null, 2) + '\n', { flag: 'wx', mode: 0o600 });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateDevKey(file);
    throw error;
  }
}

/** A development access token for `subject` (RFC 9068 shape: `typ: at+jwt`). */
export async function signDevToken(
  key: DevKey,
  {
    subject,
    audience,
    scopes = [],
    ttlSeconds = 3600,
  }: { subject: string; audience: string; scopes?: Scope[]; ttlSeconds?: number },
): Promise<string> {
  const jose = await import('jose');
  const signingKey = await jose.importJWK(key.privateJwk, 'EdDSA');
  return new jose.SignJWT({ scope: scopes.join(' ') || undefined, client_id: 'petstore-dev' })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid })
    .setIssuer(DEV_TOKEN_ISSUER)
    .setAudience(audience)
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .setJti(crypto.randomUUID())
    .sign(signingKey);
}
