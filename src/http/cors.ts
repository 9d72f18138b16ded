/**
 * CORS for browser clients (GraphQL web apps and the REST paths), with the allowed origins from
 * configuration (CORS_ORIGINS). No origins configured: no CORS headers, so browsers keep other
 * origins out. Bearer keys, not cookies, authenticate: credentials mode stays off.
 */
import type { FastifyInstance } from 'fastify';
import fastifyCors from '@fastify/cors';
import type { Config } from '../config';

/** Response headers a browser script may read. */
export const EXPOSED_HEADERS = [
  'Deprecation',
  'Sunset',
  'Link',
  'ETag',
  'X-Total-Count',
  'X-Request-Id',
  'Retry-After',
  'WWW-Authenticate',
  // The rate limit's IETF draft headers (http/rate-limit.ts), so browser code can pace itself.
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

export async function registerCors(app: FastifyInstance, { origins }: Config['cors']): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    // An OPTIONS request without the preflight headers is answered like a preflight (204 with the
    // allowed methods, as RFC 9110 means OPTIONS), not with the plugin's text/plain 400, whose body
    // is not the error shape every other answer has (issue 23, item 8).
    strictPreflight: false,
  });
}
