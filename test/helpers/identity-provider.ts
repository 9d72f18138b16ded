/**
 * A stand-in OpenID Connect provider for tests: its discovery document and JWKS served over real
 * HTTP on 127.0.0.1, signing keys it can rotate, and the ways a provider fails (refusing
 * connections, answering nothing). It signs access tokens with `jose`, as a real provider would.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { CryptoKey, JWK, JWTPayload } from 'jose';

type Jose = typeof import('jose');

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface TokenOptions {
  sub?: string | undefined;
  scope?: string;
  scp?: string | string[];
  iss?: string;
  aud?: string;
  /** Seconds from now (negative: in the past). */
  expiresIn?: number | null;
  /** Seconds from now. */
  notBefore?: number;
  typ?: string | null;
  key?: SigningKey;
  /** Overrides the header's kid. */
  kid?: string;
}

export interface IdentityProvider {
  issuer: string;
  audience: string;
  /** Every request the provider answered (or hung on), by path. */
  fetches: { discovery: number; jwks: number };
  /** Published keys (what the JWKS serves). */
  published: SigningKey[];
  newKey(alg?: 'RS256' | 'PS256' | 'ES256' | 'EdDSA', kid?: string): Promise<SigningKey>;
  sign(options?: TokenOptions): Promise<string>;
  /** 'up' answers; 'down' refuses connections (the server is closed); 'hang' accepts and never answers. */
  setMode(mode: 'up' | 'down' | 'hang'): Promise<void>;
  close(): Promise<void>;
  jose: Jose;
}

export async function startIdentityProvider(audience = 'petstore-api'): Promise<IdentityProvider> {
  const jose: Jose = await import('jose');
  const fetches = { discovery: 0, jwks: 0 };
  let mode: 'up' | 'down' | 'hang' = 'up';
  const sockets = new Set<Socket>();
  const published: SigningKey[] = [];
  let issuer = '';
  const handler: http.RequestListener = (req, res) => {
    if (req.url === '/.well-known/openid-configuration') fetches.discovery++;
    else if (req.url === '/jwks') fetches.jwks++;
    if (mode === 'hang') return; // never answered
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256'] }));
    } else if (req.url === '/jwks') {
      res.end(JSON.stringify({ keys: published.map((k) => k.publicJwk) }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  };
  let server = http.createServer(handler);
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);
  issuer = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });

  let counter = 0;
  const provider: IdentityProvider = {
    issuer,
    audience,
    fetches,
    published,
    jose,
    async newKey(alg = 'RS256', kid = `key-${++counter}`) {
      const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
      const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' };
      return { kid, alg, privateKey, publicJwk };
    },
    async sign(o = {}) {
      const key = o.key ?? published[0];
      if (!key) throw new Error('no signing key');
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = { scope: o.scope, scp: o.scp as never };
      const header: Record<string, unknown> = { alg: key.alg, kid: o.kid ?? key.kid };
      if (o.typ !== null) header.typ = o.typ ?? 'at+jwt';
      let jwt = new jose.SignJWT(payload)
        .setProtectedHeader(header as never)
        .setIssuer(o.iss ?? issuer)
        .setAudience(o.aud ?? audience)
        .setIssuedAt(now);
      if (o.sub !== undefined || !('sub' in o)) jwt = jwt.setSubject(o.sub ?? 'alice');
      if (o.expiresIn !== null) jwt = jwt.setExpirationTime(now + (o.expiresIn ?? 600));
      if (o.notBefore !== undefined) jwt = jwt.setNotBefore(now + o.notBefore);
      return jwt.sign(key.privateKey);
    },
    async setMode(next) {
      if (next === mode) return;
      if (mode === 'down') {
        server = http.createServer(handler);
        await listen(port);
      }
      if (next === 'down') await stop();
      if (next !== 'hang' && mode === 'hang') for (const s of sockets) s.destroy();
      mode = next;
    },
    async close() {
      if (mode !== 'down') await stop();
    },
  };
  published.push(await provider.newKey('RS256'));
  return provider;
}
