/**
 * The public port, checked before anything slow starts, and the line for a port that cannot be
 * listened on. Its own small module: the cluster primary (src/cluster.ts) checks the port before it
 * forks any worker, without loading the server's modules.
 */
import net from 'node:net';
import type { Config } from './config';
import type { FatalLine } from './fatal-log';

/**
 * Fails with the port-in-use line (explainListenError) when `host:port` cannot be listened on, so
 * that a port clash is said at once, before the database is opened, created or migrated (seconds on a
 * first start). The server listens for real later; a port taken in between still gets the same line.
 */
export function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The one line for a port in use or a HOST that is not this machine's, naming the setting; else null. */
export function explainListenError(error: unknown, config: Pick<Config, 'host' | 'port'>): FatalLine | null {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'EADDRINUSE') {
    return {
      message:
        `Port ${config.port} on ${config.host} is already in use (another server still running?). ` +
        `Stop that process, or set PORT to a free port (PORT=${config.port === 4000 ? 4001 : 4000} npm start).`,
      setting: 'PORT',
    };
  }
  if (code === 'EADDRNOTAVAIL') {
    return {
      message: `HOST ${config.host} is not an address of this machine: set HOST to 0.0.0.0, 127.0.0.1 or one of its addresses.`,
      setting: 'HOST',
    };
  }
  return null;
}
