/**
 * Who is calling, once per request, for GraphQL and REST alike, in three onRequest steps around the
 * rate limit (src/http/access.plugin.ts registers them in this order):
 *
 * 1. `registerCallerResolution` reads the Authorization header without touching the database: none
 *    means anonymous; a malformed header is remembered as a failure (not thrown yet); a key this
 *    process has already verified (the API-key cache) puts its caller on `request.caller` at once.
 *    An access token (a JWT, when AUTH_JWT_* or AUTH_DEV_TOKENS is set) is verified here, a
 *    signature check against the provider's cached keys (access-token.ts): valid, it is the caller;
 *    invalid, its error is remembered like a malformed header's.
 * 2. The rate limit (http/rate-limit.ts) counts the request: by key or signed-in subject when step 1
 *    knew the caller, by client address otherwise. So every request, a bad credential included, is counted before any
 *    credential is looked up, and a flood of unknown keys over the budget is answered 429 without a
 *    query.
 * 3. `registerAccessControl` looks up a presented key the cache did not know (one database read),
 *    charges the key's own budget once it is known valid (rate-limit.ts), answers a bad credential
 *    with 401 on every path, public or not (never silently anonymous), and checks the scope of REST
 *    routes that name an operation of the scope table (`config: { operation: 'GET /store/orders' }`).
 *    GraphQL operations are checked per field by the TypeGraphQL auth checker.
 *
 * All run before the body is read, so an unauthorised request costs no parsing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, UnauthenticatedError } from '../../errors/app-error';
import type { ApiKeyService } from './api-key.service';
import { looksLikeJwt, type TokenVerifier } from './access-token';
import { authorize } from './authorize';
import type { Caller } from './caller';
import type { Operation } from '../../common/scopes';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key or signed-in subject, or null for an anonymous request. */
    caller: Caller | null;
    /** Set when the request carried a credential that is not a valid key. */
    credentialError: AppError | null;
    /** The key presented in the Authorization header, verified in step 3. */
    presentedKey: string | null;
  }
  interface FastifyContextConfig {
    /** The route's entry in SCOPE_TABLE; routes without one are public plumbing (health checks). */
    operation?: Operation;
  }
}

/** `Bearer <key>`, as an Authorization header or a graphql-ws `connectionParams` value carries it. */
export const BEARER = /^Bearer +(\S+) *$/i;

/** How many Authorization lines the request carried (`rawHeaders` is name, value, name, value...). */
function authorizationLines(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') count++;
  return count;
}

/**
 * `tokens`: the access-token verifier (null: API keys only, and a JWT is refused as an unknown key).
 */
export function registerCallerResolution(
  app: FastifyInstance,
  apiKeys: ApiKeyService,
  tokens: TokenVerifier | null,
): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('credentialError', null);
  app.decorateRequest('presentedKey', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return;
    // Node keeps the first of several Authorization lines and drops the rest: a proxy in front may
    // have read another one. Two credentials are not one valid credential (RFC 9110: one line only).
    if (authorizationLines(request.raw.rawHeaders) > 1) {
      request.credentialError = new UnauthenticatedError('Send one Authorization header, not several', true);
      return;
    }
    const token = BEARER.exec(header)?.[1];
    if (!token) {
      request.credentialError = new UnauthenticatedError(
        'The Authorization header must be "Bearer <API key>" or "Bearer <access token>"',
        true,
      );
      return;
    }
    if (tokens && looksLikeJwt(token)) {
      try {
        request.caller = await tokens.verify(token);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        request.credentialError = error;
      }
      return;
    }
    request.presentedKey = token;
    request.caller = apiKeys.cachedCaller(token);
  });
}

/**
 * `chargeKey`: counts a request against a key that was just verified (its first request in this
 * process, or every request when the cache is off), having been counted by address before the lookup.
 */
export function registerAccessControl(
  app: FastifyInstance,
  apiKeys: ApiKeyService,
  chargeKey: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    if (request.presentedKey !== null) {
      const countedByKey = request.caller !== null;
      // A cache hit costs no read here (only the once-a-minute lastUsedAt write).
      request.caller = await apiKeys.authenticate(request.presentedKey);
      if (!request.caller)
        request.credentialError = new UnauthenticatedError('The API key is unknown or revoked', true);
      else if (!countedByKey) await chargeKey(request, reply);
    }
    if (request.credentialError) throw request.credentialError;
    const operation = request.routeOptions.config?.operation;
    if (operation) authorize(request.caller, operation);
  });
}
