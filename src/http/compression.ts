/**
 * Response compression (@fastify/compress): br or gzip as the client's Accept-Encoding prefers, for
 * every answer over COMPRESSION_THRESHOLD bytes (GraphQL, REST, /openapi.json, the docs page).
 * A 100-pet page goes from 23,652 bytes to about 1,400 (gzip) or 1,000 (br). Brotli runs at
 * @fastify/compress's quality 4 (its default), not zlib's 11, which is far slower for little gain
 * on small JSON; the CPU cost is measured by `npm run bench` (bench/compression.ts).
 */
import type { FastifyInstance } from 'fastify';
import fastifyCompress from '@fastify/compress';
import Negotiator from 'negotiator';

/** Smaller answers go out as they are: the headers would outweigh the bytes saved. */
export const COMPRESSION_THRESHOLD = 1024;

const ENCODINGS: ('br' | 'gzip')[] = ['br', 'gzip'];

/**
 * An Accept-Encoding with `*` as the codings it allows, in its order (`identity` when none): what
 * @fastify/compress is then given. It reads `*` as `gzip` before negotiating, so `gzip;q=0, *` (any
 * coding but gzip) was answered gzip. negotiator (the library it negotiates with) reads `*` as RFC
 * 9110 section 12.5.3 says: the codings not named. Headers without `*` go to it unchanged.
 */
function explicitEncodings(header: string): string {
  const allowed = new Negotiator({ headers: { 'accept-encoding': header } }).encodings(ENCODINGS);
  return allowed.length ? allowed.join(', ') : 'identity';
}

export async function registerCompression(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers['accept-encoding'];
    if (header?.includes('*')) request.headers['accept-encoding'] = explicitEncodings(header);
    done();
  });
  // HEAD answers carry the headers of the GET they stand for (RFC 9110, section 9.3.2): the same
  // Content-Encoding, Vary and Content-Length. Fastify ends a HEAD route's onSend hooks with its own,
  // which measures the body and drops it; @fastify/compress appends its hook after that one, so it
  // saw no body and a HEAD told the identity length and no coding while the GET went out br or gzip.
  // The body-dropping hook (the last before @fastify/compress adds its own) is moved back to the end.
  const headHooks = new WeakMap<object, unknown>();
  app.addHook('onRoute', (route) => {
    const hooks = route.onSend;
    if (route.method === 'HEAD' && hooks) headHooks.set(route, Array.isArray(hooks) ? hooks.at(-1) : hooks);
  });
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: ENCODINGS,
    // Request bodies sent with Content-Encoding gzip, deflate or br are decompressed too:
    // BODY_LIMIT_BYTES holds the decompressed size (a bomb is 413 as soon as it passes the limit), a
    // body that does not decompress is 400, another encoding 415 (test/http/limits.test.ts). Named
    // here, not left to its defaults: those add zstd where the runtime's zlib has it (Node 22.15+),
    // so the same request was 415 on Node 20 and decompressed on Node 24.
    requestEncodings: ['br', 'gzip', 'deflate', 'identity'],
  });
  app.addHook('onRoute', (route) => {
    const dropBody = headHooks.get(route);
    if (dropBody === undefined || !Array.isArray(route.onSend)) return;
    route.onSend = [...route.onSend.filter((hook) => hook !== dropBody), dropBody] as typeof route.onSend;
  });
}
