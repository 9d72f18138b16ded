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

/** What a listen error is explained against: the public port, and the metrics port when it is on. */
export type Listeners = Pick<Config, 'host' | 'port'> & { metrics?: Pick<Config['metrics'], 'host' | 'port'> };

/**
 * The one line for a port in use or not allowed to this user (a port below 1024 without root), or a
 * host that is not this machine's (or does not resolve), naming the setting of the
 * listener that failed (Node's error carries its port): PORT and HOST for the public port,
 * METRICS_PORT and METRICS_HOST for the metrics listener; else null.
 */
export function explainListenError(error: unknown, listeners: Listeners): FatalLine | null {
  const {
    code,
    port: failedPort,
    syscall,
    hostname,
  } = (error ?? {}) as { code?: string; port?: number; syscall?: string; hostname?: string };
  const { metrics } = listeners;
  // A name that does not resolve fails before any port is tried: its error carries the name instead.
  const unresolved = syscall === 'getaddrinfo' && hostname !== undefined;
  const onMetrics =
    metrics !== undefined &&
    metrics.port > 0 &&
    (unresolved
      ? hostname === metrics.host && hostname !== listeners.host
      : failedPort === metrics.port && failedPort !== listeners.port);
  const [host, port, portSetting, hostSetting] = onMetrics
    ? [metrics.host, metrics.port, 'METRICS_PORT', 'METRICS_HOST']
    : [listeners.host, listeners.port, 'PORT', 'HOST'];
  if (code === 'EACCES' && syscall === 'listen') {
    return {
      message:
        `Port ${port} on ${host} may not be listened on by this user (EACCES: ports below 1024 need root or ` +
        `CAP_NET_BIND_SERVICE). Set ${portSetting} to 1024 or above (${portSetting}=${onMetrics ? 9464 : 4000}); ` +
        'a load balancer or a port mapping can still publish it on a lower port.',
      setting: portSetting,
    };
  }
  if (code === 'EADDRINUSE') {
    return {
      message:
        `Port ${port} on ${host} is already in use (another server still running?). ` +
        `Stop that process, or set ${portSetting} to a free port (${portSetting}=${port === 4000 ? 4001 : port + 1}).`,
      setting: portSetting,
    };
  }
  if (unresolved) {
    return {
      message: `${hostSetting} ${host} is not an address this machine can resolve (${code}): set ${hostSetting} to 0.0.0.0, 127.0.0.1 or one of its addresses.`,
      setting: hostSetting,
    };
  }
  if (code === 'EADDRNOTAVAIL') {
    return {
      message: `${hostSetting} ${host} is not an address of this machine: set ${hostSetting} to 0.0.0.0, 127.0.0.1 or one of its addresses.`,
      setting: hostSetting,
    };
  }
  return null;
}
