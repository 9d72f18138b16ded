/**
 * Who is calling, once per request, for GraphQL and REST alike.
 *
 * 1. `resolveCaller` (onRequest) reads the Authorization header: none means anonymous, a valid
 *    `Bearer <key>` puts the key's caller on `request.caller`, anything else is remembered as a
 *    failure (not thrown yet, so the rate limiter, which runs next, counts it by client address).
 * 2. `enforceAccess` (onRequest, after the rate limiter) answers a bad credential with 401 on every
 *    path, public or not (never silently anonymous), and checks the scope of REST routes that name
 *    an operation of the scope table (`config: { operation: 'GET /store/orders' }`). GraphQL
 *    operations are checked per field by the TypeGraphQL auth checker (src/graphql/auth-checker.ts).
 *
 * Both run before the body is read, so an unauthorised request costs no parsing.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { UnauthenticatedError } from '../../errors/app-error';
import type { Caller, ApiKeyService } from './api-key.service';
import { authorize } from './authorize';
import type { Operation } from './scopes';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key, or null for an anonymous request. */
    caller: Caller | null;
    /** Set when the request carried a credential that is not a valid key. */
    credentialError: UnauthenticatedError | null;
  }
  interface FastifyContextConfig {
    /** The route's entry in SCOPE_TABLE; routes without one are public plumbing (health checks). */
    operation?: Operation;
  }
}

/** `Bearer <key>`, as an Authorization header or a graphql-ws `connectionParams` value carries it. */
export const BEARER = /^Bearer +(\S+) *$/i;

export function registerCallerResolution(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('credentialError', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return;
    const token = BEARER.exec(header)?.[1];
    if (!token) {
      request.credentialError = new UnauthenticatedError(
        'The Authorization header must be "Bearer <API key>"',
        true,
      );
      return;
    }
    request.caller = await apiKeys.authenticate(token);
    if (!request.caller) {
      request.credentialError = new UnauthenticatedError('The API key is unknown or revoked', true);
    }
  });
}

export function registerAccessControl(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.credentialError) throw request.credentialError;
    const operation = request.routeOptions.config?.operation;
    if (operation) authorize(request.caller, operation);
  });
}
