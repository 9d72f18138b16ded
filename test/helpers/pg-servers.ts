/**
 * Real PostgreSQL topologies for tests: a PgBouncer (Debian's package) in transaction mode in front
 * of a PostgreSQL server, and a private primary with a streaming replica (the machine's PostgreSQL
 * server binaries, `pg_config --bindir`). Both run as the `postgres` user when the tests run as root
 * (neither runs as root), on free ports, in temporary directories removed on stop.
 */
export { freePort } from './server-process';
import { freePort } from './server-process';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
/** What a skipped suite needs, and how to provide it (the shape of describe-if.ts's SkipReason). */
interface SkipReason {
  needs: string;
  run: string;
}

const isRoot = process.getuid?.() === 0;

function which(binary: string, extra: string[] = []): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', ...extra]) {
    const file = path.join(dir, binary);
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

/** PgBouncer's binary, or null. */
export const pgbouncerBinary: string | null = which('pgbouncer');

/** The directory of PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup), or null. */
export const pgBinDir: string | null = (() => {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_basebackup')) ? dir : null;
  } catch {
    return null;
  }
})();

/** Root runs the servers as `postgres`; that user must exist. */
const serverUser: string | null = isRoot
  ? spawnSync('id', ['-u', 'postgres']).status === 0
    ? 'postgres'
    : null
  : (os.userInfo().username ?? null);

/** pg_stat_statements is installed: the replica suite counts statements on each server with it. */
const statStatements: boolean = (() => {
  try {
    const lib = execFileSync('pg_config', ['--pkglibdir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return fs.existsSync(path.join(lib, 'pg_stat_statements.so'));
  } catch {
    return false;
  }
})();

export const pgbouncerAvailable = Boolean(pgbouncerBinary && serverUser);
export const replicationAvailable = Boolean(pgBinDir && serverUser && statStatements);

export const NEEDS_PGBOUNCER: SkipReason = {
  needs: 'PgBouncer and a PostgreSQL server',
  run: 'apt-get install -y pgbouncer, then TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npm test (CI does)',
};
export const NEEDS_PG_BINARIES: SkipReason = {
  needs:
    "PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup under `pg_config --bindir`), pg_stat_statements and a postgres user",
  run: 'apt-get install -y postgresql (CI machines have it)',
};

/** Runs `file` as the server user (root cannot run PgBouncer or PostgreSQL). */
function runAsServerUser(file: string, args: string[], options: { cwd?: string } = {}): void {
  const [cmd, argv] = isRoot ? ['runuser', ['-u', serverUser!, '--', file, ...args]] : [file, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: options.cwd ?? os.tmpdir(), timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(
      `${path.basename(file)} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
    );
  }
}

/** A temporary directory the server user owns. */
function serverDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (isRoot) execFileSync('chown', [serverUser!, dir]);
  return dir;
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export interface PgBouncer {
  port: number;
  /** The URL of `database` through the pooler, with `?pgbouncer=true` unless `flag` is false. */
  url(database: string, flag?: boolean): string;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction mode on a free port in front of `upstream` (every database of that
 * server, through the `*` fallback entry), with trust auth for the upstream's user and only
 * `extra_float_digits` in ignore_startup_parameters, as Debian's 1.18 ships it. `settings` replaces
 * those (the `[pgbouncer]` lines of a documented configuration); where it listens, its files and
 * its auth_file stay the helper's.
 */
export async function startPgBouncer(
  upstream: string,
  {
    ignoreStartupParameters = 'extra_float_digits',
    poolSize = 10,
    settings,
  }: { ignoreStartupParameters?: string; poolSize?: number; settings?: string[] } = {},
): Promise<PgBouncer> {
  const up = new URL(upstream);
  const dir = serverDir('petstore-pgbouncer-');
  const port = await freePort();
  const user = decodeURIComponent(up.username || 'postgres');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${up.hostname} port=${up.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      `auth_file = ${dir}/userlist.txt`,
      ...(settings ?? [
        'auth_type = trust',
        'pool_mode = transaction',
        `ignore_startup_parameters = ${ignoreStartupParameters}`,
        'max_client_conn = 1000',
        `default_pool_size = ${poolSize}`,
        'autodb_idle_timeout = 10',
      ]),
      `logfile = ${dir}/pgbouncer.log`,
      `pidfile = ${dir}/pgbouncer.pid`,
      '',
    ].join('\n'),
  );
  runAsServerUser(pgbouncerBinary!, ['-d', path.join(dir, 'pgbouncer.ini')]);
  const pidFile = path.join(dir, 'pgbouncer.pid');
  await waitFor(async () => fs.existsSync(pidFile) && (await accepts(port)), 'PgBouncer to listen');
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  return {
    port,
    url(database, flag = true) {
      const u = new URL(upstream);
      u.host = `127.0.0.1:${port}`;
      u.pathname = `/${database}`;
      if (flag) u.searchParams.set('pgbouncer', 'true');
      return u.toString();
    },
    async stop() {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      await waitFor(() => !alive(pid), 'PgBouncer to stop').catch(() => process.kill(pid, 'SIGKILL'));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface PgServer {
  port: number;
  dir: string;
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** Stops the server (`fast`: clients are disconnected, as a crash or failover would). */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): Promise<void>;
  /** Runs one statement on `database` and returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<T[]>;
}

function pgServer(dir: string, port: number): PgServer {
  const bin = (name: string) => path.join(pgBinDir!, name);
  const url = (database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const server: PgServer = {
    port,
    dir,
    url,
    stop(mode = 'fast') {
      runAsServerUser(bin('pg_ctl'), ['-D', dir, '-m', mode, '-w', 'stop']);
    },
    async start() {
      runAsServerUser(bin('pg_ctl'), ['-D', dir, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
      await waitFor(() => accepts(port), `PostgreSQL on port ${port}`);
    },
    async query<T>(sql: string, params: unknown[] = [], database = 'postgres') {
      const c = new Client({ connectionString: url(database) });
      c.on('error', () => undefined);
      await c.connect();
      try {
        return (await c.query(sql, params)).rows as T[];
      } finally {
        await c.end();
      }
    },
  };
  return server;
}

export interface ReplicatedPair {
  primary: PgServer;
  replica: PgServer;
  /** Stops both servers and removes their directories. */
  stop(): Promise<void>;
}

/**
 * A private primary (initdb, trust auth, replication allowed from 127.0.0.1 as initdb allows by
 * default) and a streaming replica of it (`pg_basebackup -R -X stream`), on free ports.
 * `applyDelayMs` sets the replica's recovery_min_apply_delay: its lag made visible.
 */
export async function startReplicatedPair({ applyDelayMs = 0 } = {}): Promise<ReplicatedPair> {
  const root = serverDir('petstore-replication-');
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  runAsServerUser(path.join(pgBinDir!, 'initdb'), ['-D', primaryDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const settings = (port: number) =>
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${root}'`,
      'max_connections = 40',
      'shared_buffers = 16MB',
      'fsync = off',
      'wal_level = replica',
      'max_wal_senders = 4',
      'hot_standby = on',
      // Statements counted on each server: which one served a read.
      "shared_preload_libraries = 'pg_stat_statements'",
      '',
    ].join('\n');
  fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), settings(primaryPort));
  const primary = pgServer(primaryDir, primaryPort);
  await primary.start();
  const stopAll = async () => {
    for (const s of [replica, primary]) {
      try {
        if (fs.existsSync(path.join(s.dir, 'postmaster.pid'))) s.stop('immediate');
      } catch {
        // already stopped
      }
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  const replica = pgServer(replicaDir, replicaPort);
  try {
    runAsServerUser(path.join(pgBinDir!, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
    ]);
    fs.appendFileSync(
      path.join(replicaDir, 'postgresql.conf'),
      settings(replicaPort) + `recovery_min_apply_delay = ${applyDelayMs}\n`,
    );
    await replica.start();
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { primary, replica, stop: stopAll };
}
