/**
 * Process start: configuration, database (migrated), server, signals. Nothing else lives here.
 */
import 'reflect-metadata';
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config';
import { buildApp } from './app';
import { openDatabase } from './db/open';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  const app = await buildApp({ config, db });
  closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error');
    else app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await db.close();
    app.log.info('stopped');
  });
  await app.listen({ host: config.host, port: config.port });
  app.log.info(
    { database: db.kind, graphql: `http://localhost:${config.port}/graphql` },
    'petstore gateway ready',
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'DatabaseInUseError')) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
