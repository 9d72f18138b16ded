/**
 * The process entry: `npm start`, `node dist/src/main.js`, the container's command. One process
 * serves (WEB_CONCURRENCY unset or 1: src/server.ts in this process), or this process becomes the
 * primary of WEB_CONCURRENCY workers (src/cluster.ts), each of which runs this same file and, being a
 * worker, serves. Kept small on purpose: the primary loads the configuration and the cluster code,
 * never the server's modules (GraphQL, Prisma, PGlite, the tracing SDK).
 */
import cluster from 'node:cluster';
import { loadConfig, readEnvFile, type Config } from './config';
import { writeFatal } from './fatal-log';
import { applyHeapSettings } from './heap';

function configOrExit(): Config {
  try {
    readEnvFile();
    return loadConfig();
  } catch (error) {
    writeFatal(error);
    process.exit(1);
  }
}

const config = configOrExit();
// Before the server's modules load and fill the heap; every worker runs this file too.
applyHeapSettings(config);
// With trusted documents on, SIGHUP re-reads their manifests and never stops a process: one that
// arrives while this process starts, before src/server.ts (or src/cluster.ts) listens for it, would
// kill it (the signal's default). The manifests are read as the server starts: nothing to re-read yet.
if (config.trustedDocuments.mode !== 'off') process.on('SIGHUP', () => undefined);
// A worker serves: its primary read the same configuration and chose the number.
const workers = cluster.isWorker ? 1 : config.workers;
// Loaded on demand (require: this is CommonJS), so the primary never loads the server's modules.
/* eslint-disable @typescript-eslint/no-require-imports */
if (workers > 1) {
  void (require('./cluster') as typeof import('./cluster')).runPrimary(config);
} else {
  (require('./server') as typeof import('./server')).startServer();
}
/* eslint-enable @typescript-eslint/no-require-imports */
