/**
 * Security headers on every response, in one of two profiles:
 *
 * - `document` (the default, for pages: `/`, `/docs`, the explorer): helmet's defaults (CSP
 *   default-src 'self', nosniff, HSTS, X-Frame-Options, Cross-Origin-Opener-Policy, ...).
 * - `api` (the API's own answers: POST /graphql, the REST routes, /healthz, /readyz, /openapi.json):
 *   what the OWASP REST Security Cheat Sheet lists for API responses. A CSP of `default-src 'none';
 *   frame-ancestors 'none'` (stricter than a page's: an API answer loads nothing and is framed by
 *   nothing), HSTS, nosniff, `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer` and
 *   `Cross-Origin-Resource-Policy`. Headers that only mean something to a browser rendering a document
 *   are left out: Cross-Origin-Opener-Policy, Origin-Agent-Cluster, X-DNS-Prefetch-Control,
 *   X-Download-Options (IE8), X-Permitted-Cross-Domain-Policies (Flash, PDF) and X-XSS-Protection
 *   (`0`, turning off an auditor no browser ships). An API answer is 6 headers and 120-380 bytes
 *   smaller, which each client parses (docs/benchmarks.md).
 *
 * A route chooses with `config: { securityHeaders }`; a route that does not say is a document, so a
 * page added later keeps the full set.
 *
 * helmet computes them, once. @fastify/helmet would run helmet's middleware on every request, which
 * rebuilds the same header values each time: measured in issue 6 at ~0.09 ms of CPU per request, a
 * quarter of the whole cost of a REST answer. With no per-request directive (no nonces) the result
 * never changes, so helmet's middleware runs here once, against a recorder, and each response gets
 * the recorded headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { registerHostCheck, routePattern, routerPath } from './errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Which security headers the route's answers get: `api` (JSON and text answers of the API),
     * `document` (pages; the default), or `document-own-csp` for a page that sends a
     * Content-Security-Policy of its own (the explorer brings one in a <meta>): a document's other
     * headers, no CSP header.
     */
    securityHeaders?: SecurityProfile;
  }
}

/** The headers helmet sets for `options`, by running its middleware once against a recorder. */
export function helmetHeaders(options: Readonly<HelmetOptions> = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failure = error;
  });
  if (failure) throw failure;
  return headers;
}

/**
 * helmet's CSP without `upgrade-insecure-requests`, for answers over plain http. That directive makes a
 * browser fetch every asset of the page over https: a page opened at `http://<address>:4000/docs` (a
 * VM, a container, the address the server logs) then loads none of its scripts and stays blank. On
 * https it stays (mixed content is then upgraded, as helmet intends).
 */
const PLAIN_HTTP_CSP: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
};

/** See the module's comment. */
export type SecurityProfile = 'api' | 'document' | 'document-own-csp';

/** The `api` profile (module comment): the OWASP REST Security Cheat Sheet's headers for API answers. */
const API_PROFILE: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
};

/**
 * The `api` profile's headers as name and value, for answers written before any request exists (a
 * request Node's parser refused: `clientErrorHandler` in http/errors.ts).
 */
export function apiSecurityHeaders(): Record<string, string> {
  return helmetHeaders(API_PROFILE);
}

/**
 * Sets helmet's headers on one answer: the step every answer goes through. `profile`: instead of the
 * route's own (an answer no route gives, on a path of API routes: registerSecurityHeaders).
 */
export type SecurityHeaders = (request: FastifyRequest, reply: FastifyReply, profile?: SecurityProfile) => void;

/**
 * The headers' step, made before the app (app.ts hands it to Fastify's `frameworkErrors` too, for the
 * answers its router gives before any hook runs); `registerSecurityHeaders` puts it on every answer.
 */
export function securityHeaders(): SecurityHeaders {
  const overHttps = helmetHeaders();
  const overHttp = helmetHeaders(PLAIN_HTTP_CSP);
  const withoutCsp = helmetHeaders({ contentSecurityPolicy: false });
  const api = helmetHeaders(API_PROFILE);
  return (request, reply, chosen) => {
    const profile = chosen ?? request.routeOptions?.config?.securityHeaders;
    if (profile === 'api') reply.headers(api);
    else if (profile === 'document-own-csp') reply.headers(withoutCsp);
    // request.protocol honours X-Forwarded-Proto behind a proxy when TRUST_PROXY is set.
    else reply.headers(request.protocol === 'https' ? overHttps : overHttp);
  };
}

/**
 * Puts the headers on every answer (an onRequest hook). An answer no route gives (the not-found
 * handler's) on a path the API's routes name, such as the 405 of `DELETE /pets/1`, is an API error
 * and gets the API's headers; an unknown path gets a page's.
 */
export function registerSecurityHeaders(app: FastifyInstance, apply: SecurityHeaders): void {
  const apiPaths: RegExp[] = [];
  app.addHook('onRoute', (route) => {
    if (route.config?.securityHeaders === 'api' && route.url !== '*' && route.url !== '/*')
      apiPaths.push(routePattern(route.url));
  });
  app.addHook('onRequest', (request, reply, done) => {
    const path = routerPath(request.url);
    apply(request, reply, request.is404 && apiPaths.some((p) => p.test(path)) ? 'api' : undefined);
    done();
  });
}

/**
 * helmet's headers on every answer (`headers`: SECURITY_HEADERS on; null: none), then the Host check
 * (a missing or malformed Host is 400, before anything reads it, with the headers above).
 */
async function securityHeadersAndHostCheck(app: FastifyInstance, { headers }: { headers: SecurityHeaders | null }) {
  if (headers) registerSecurityHeaders(app, headers);
  registerHostCheck(app);
}

/** fastify-plugin: both are onRequest hooks of every route of the app, and of its 404s. */
export const securityHeadersPlugin = fp(securityHeadersAndHostCheck, { name: 'security-headers' });
