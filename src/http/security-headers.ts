/**
 * Security headers: helmet's defaults (CSP default-src 'self', nosniff, HSTS, frame-ancestors 'none',
 * ...), on every response.
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
import { registerHostCheck } from './errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `false` for a route that sends a Content-Security-Policy of its own (Apollo's landing page
     * brings a nonce-based one in a <meta>); the other security headers still apply.
     */
    contentSecurityPolicy?: boolean;
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

/** Sets helmet's headers on one answer: the step every answer goes through. */
export type SecurityHeaders = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The headers' step, made before the app (app.ts hands it to Fastify's `frameworkErrors` too, for the
 * answers its router gives before any hook runs); `registerSecurityHeaders` puts it on every answer.
 */
export function securityHeaders(): SecurityHeaders {
  const overHttps = helmetHeaders();
  const overHttp = helmetHeaders(PLAIN_HTTP_CSP);
  const withoutCsp = helmetHeaders({ contentSecurityPolicy: false });
  return (request, reply) => {
    if (request.routeOptions?.config?.contentSecurityPolicy === false) reply.headers(withoutCsp);
    // request.protocol honours X-Forwarded-Proto behind a proxy when TRUST_PROXY is set.
    else reply.headers(request.protocol === 'https' ? overHttps : overHttp);
  };
}

/** Puts the headers on every answer (an onRequest hook). */
export function registerSecurityHeaders(app: FastifyInstance, apply: SecurityHeaders): void {
  app.addHook('onRequest', (request, reply, done) => {
    apply(request, reply);
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
