/**
 * T1, the fastest Node GraphQL peer: mercurius with graphql-jit (`jit: 1`: a query is compiled on
 * its first use and the compiled function cached) over the SAME TypeGraphQL schema, the same
 * services, Prisma client and per-request DataLoaders as the gateway. Only the GraphQL server differs.
 * W5 is answered by a plain Fastify route over the same PetService.
 *
 * Environment: the gateway's own (src/config.ts): PORT, HOST, DATABASE_URL or PGLITE_DATA_DIR, DB_POOL_SIZE.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { loadConfig, projectRoot } from '../src/config';
import { openDatabase } from '../src/db/open';
import { createContext } from '../src/modules/context';
import { Reads } from '../src/read/reads';
import { createSchema } from '../src/schema/schema';
import { startApiKeyCache } from '../src/modules/auth/api-key.cache';
import { createServices } from '../src/modules/services';

type ContextRequest = Parameters<typeof createContext>[1];

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  const app = Fastify({ logger: false });
  // The gateway caches authenticated keys (src/modules/auth/api-key.cache.ts); so does T1, or it
  // would pay a key read per request that T3 does not.
  const apiKeyCache = await startApiKeyCache(db, { ttlMs: config.apiKeys.cacheTtlMs }, app.log);
  const services = createServices(db, { apiKeyCache: apiKeyCache?.cache });
  const schema = await createSchema();

  // Once API keys exist (issue 5), the schema's auth checker reads `caller` from the context: resolve
  // it with the gateway's own hook, so T1 authorises exactly as T3 does.
  const authHooks = path.join(projectRoot, 'dist', 'src', 'modules', 'auth', 'auth.hooks.js');
  const apiKeys = (services as unknown as Record<string, unknown>).apiKeys;
  if (fs.existsSync(authHooks) && apiKeys) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const hooks = require(authHooks) as {
      registerCallerResolution?: (app: unknown, keys: unknown) => void;
      registerAccessControl?: (app: unknown, keys: unknown, chargeKey: () => Promise<void>) => void;
    };
    hooks.registerCallerResolution?.(app, apiKeys);
    // T1 has no rate limit: nothing to charge a key's budget with.
    hooks.registerAccessControl?.(app, apiKeys, async () => {});
  }

  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(mercurius, {
    schema,
    jit: 1,
    graphiql: false,
    context: (request) => {
      const r = request as unknown as ContextRequest;
      return createContext(services, r, new Reads(services, r.caller));
    },
  });
  app.get('/pets/:petId', async (request, reply) => {
    const { petId } = request.params as { petId: string };
    reply.type('application/json; charset=utf-8');
    if (!/^\d{1,18}$/.test(petId)) {
      reply.code(400);
      return `{"code":"VALIDATION_FAILED","message":"petId: must be a 64-bit integer id in decimal digits","status":400}`;
    }
    const pet = await services.pets.get(BigInt(petId));
    if (!pet) {
      reply.code(404);
      return `{"code":"NOT_FOUND","message":"Pet ${petId} not found","status":404}`;
    }
    return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId},"status":"${pet.status}"}`;
  });

  const close = async () => {
    await app.close();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
