/**
 * Process start: configuration, database (migrated), server, signals. Nothing else lives here.
 */
import 'reflect-metadata';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { loadConfig, readEnvFile, type Config } from './config';
import { buildApp } from './app';
import { openDatabase } from './db/open';
import { loggerOptions } from './http/request-log';
import { explainStartupError } from './startup';
import { ApiKeyService } from './modules/auth/api-key.service';
import { adminSocketPath, startAdminSocket } from './modules/auth/api-key.socket';

/** Unix socket paths are limited to about 107 bytes. */
const MAX_SOCKET_PATH = 100;

/** Known once the configuration is valid: what start-up failures are explained against. */
let startingConfig: Config | undefined;

async function main(): Promise<void> {
  const envFile = readEnvFile();
  const config = loadConfig();
  startingConfig = config;
  const log = pino(loggerOptions(config));
  if (envFile) log.info(`read ${envFile}`);
  const db = await openDatabase(config, { progress: (msg) => log.info(msg) });
  const app = await buildApp({ config, db, loggerInstance: log });
  let adminSocket: FastifyInstance | undefined;
  closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await adminSocket?.close();
    await app.close();
    await db.close();
    app.log.info('stopped');
  });
  await app.listen({ host: config.host, port: config.port });
  // The embedded database can be opened by this process only: `npm run apikey` goes through here.
  if (config.database.kind === 'pglite' && config.database.dataDir) {
    const socket = adminSocketPath(config.database.dataDir);
    if (socket.length <= MAX_SOCKET_PATH) {
      adminSocket = await startAdminSocket(socket, new ApiKeyService(db.prisma, undefined, app.log));
    } else {
      app.log.warn({ socket }, 'data directory path too long for the API-key admin socket; stop the server to manage keys');
    }
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const graphql = `http://localhost:${port}/graphql`;
  app.log.info({ database: db.kind, graphql }, 'petstore gateway ready');
}

main().catch((error: unknown) => {
  // A failure a person can fix is one line naming the setting and the fix; anything else in full.
  console.error(explainStartupError(error, startingConfig) ?? error);
  process.exit(1);
});
