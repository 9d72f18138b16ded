/**
 * Compression and CORS (app.ts registers them right after the HTTP basics): gzip or br for every
 * answer over 1 KiB, as Accept-Encoding asks (GraphQL, REST, /openapi.json); CORS_ORIGINS' headers.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config';
import { registerCompression } from './compression';
import { registerCors } from './cors';

async function compressionAndCors(app: FastifyInstance, { cors }: { cors: Config['cors'] }) {
  await registerCompression(app);
  await registerCors(app, cors);
}

/**
 * fastify-plugin: @fastify/compress and @fastify/cors hook every answer of the app; registered from
 * an encapsulated plugin they would only see that plugin's (route-less) context.
 */
export const compressionAndCorsPlugin = fp(compressionAndCors, { name: 'compression-and-cors' });
