/**
 * Process start: configuration, database (migrated), server, signals. Nothing else lives here.
 */
// First: starts the OpenTelemetry SDK, when OTEL_* asks for it, before node:http and pg are loaded.
import './telemetry/preload';
import 'reflect-metadata';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from './config';
import { buildApp } from './app';
import { DatabaseInUseError } from './db/database';
import { openDatabase } from './db/open';
import { ApiKeyService } from './modules/auth/api-key.service';
import { adminSocketPath, startAdminSocket } from './modules/auth/api-key.socket';
import { tracePglite } from './telemetry/pglite-tracing';
import { shutdownTracing, tracingEnabled } from './telemetry/tracing';

/** Unix socket paths are limited to about 107 bytes. */
const MAX_SOCKET_PATH = 100;

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  if (tracingEnabled() && db.pglite) tracePglite(db.pglite);
  const app = await buildApp({ config, db });
  let adminSocket: FastifyInstance | undefined;
  closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await adminSocket?.close();
    await app.close();
    await db.close();
    app.log.info('stopped');
    await shutdownTracing();
  });
  await app.listen({ host: config.host, port: config.port });
  // The embedded database can be opened by this process only: `npm run apikey` goes through here.
  if (config.database.kind === 'pglite' && config.database.dataDir) {
    const socket = adminSocketPath(config.database.dataDir);
    if (socket.length <= MAX_SOCKET_PATH) {
      adminSocket = await startAdminSocket(socket, new ApiKeyService(db.prisma));
    } else {
      app.log.warn({ socket }, 'data directory path too long for the API-key admin socket; stop the server to manage keys');
    }
  }
  app.log.info(
    { database: db.kind, graphql: `http://localhost:${config.port}/graphql` },
    'petstore gateway ready',
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof DatabaseInUseError ? error.message : error);
  process.exit(1);
});
