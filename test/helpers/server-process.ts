/**
 * The service as a real process (`node dist/src/main.js`, built by `pretest`), for what only real
 * processes show: several gateways on one database, signals, a real port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { socketInodes, TCP_STATE } from './raw-socket';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every line the process wrote to stdout (JSON log lines). */
  output: string[];
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const root = path.resolve(__dirname, '..', '..');

/** A port free on 127.0.0.1 right now (the OS picks it), for a process or server a test starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Node's flags for the processes tests start: V8's baseline WebAssembly compiler only (Liftoff). By
 * default V8 also recompiles PGlite's 9 MB of WebAssembly with its optimizing compiler, in background
 * threads, in every process that opens the embedded database: ~1.5 s of CPU in a process that lives
 * a few seconds, and an exit that waits for those compile jobs. Behaviour is the same (`npm test` runs
 * Jest's own workers with the same flag); `npm start` is left to V8's defaults.
 */
export const TEST_NODE_FLAGS = ['--liftoff-only'];

/**
 * The entry point run: this checkout's build, or PETSTORE_SERVER_ENTRY (another checkout's
 * dist/src/main.js, to run the same test against an older build for a before/after figure).
 */
const serverEntry = process.env.PETSTORE_SERVER_ENTRY ?? path.join(root, 'dist', 'src', 'main.js');

/** The data directories global-setup.ts builds once per run, by what they hold. */
const TEMPLATES = {
  /** Migrated, no rows. */
  migrated: 'PETSTORE_TEST_DATA_TEMPLATE',
  /** Migrated, one admin key (PETSTORE_TEST_ADMIN_KEY). */
  admin: 'PETSTORE_TEST_DATA_TEMPLATE_ADMIN',
  /** Created (initdb), no migration applied. */
  empty: 'PETSTORE_TEST_DATA_TEMPLATE_EMPTY',
} as const;

/**
 * Puts a copy of one of the run's template data directories (test/helpers/global-setup.ts; the
 * migrated one by default) at `dataDir` when no embedded database is there yet, so a process starting
 * on it opens an existing database (well under a second) instead of creating one and applying every
 * migration (seconds of CPU, each time). Returns whether it copied. Nothing happens without the
 * template (a PostgreSQL run) or when `dataDir` already holds a database.
 */
export function prepareDataDir(dataDir: string, template: keyof typeof TEMPLATES = 'migrated'): boolean {
  const from = process.env[TEMPLATES[template]];
  if (!from || !fs.existsSync(from) || fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return false;
  fs.cpSync(from, dataDir, { recursive: true });
  return true;
}

/** The embedded data directory `env` names, when it uses the embedded database. */
const embeddedDataDir = (env: Record<string, string>): string | null =>
  env.PGLITE_DATA_DIR && !env.DATABASE_URL ? path.resolve(root, env.PGLITE_DATA_DIR) : null;

export interface StartServerOptions {
  /**
   * `true` to let the process create and migrate its embedded database itself (what a first start
   * does, for tests of that). By default a new PGLITE_DATA_DIR gets a copy of the migrated template.
   */
  freshDatabase?: boolean;
  /** Node flags beside TEST_NODE_FLAGS (a V8 trace, say), before the entry point. */
  nodeFlags?: string[];
  /** Picks the port of each attempt (freePort by default; a test of this helper hands it a taken one). */
  pickPort?: () => Promise<number>;
}

/**
 * Whether `port`'s listening socket belongs to process `pid` or one of its children (a cluster's
 * workers), by Linux's /proc: its LISTEN sockets' inodes (`/proc/net/tcp`, `tcp6`) among the
 * processes' open files. null where /proc cannot tell (another system), so the check is then skipped.
 */
export function listenedOnBy(pid: number, port: number): boolean | null {
  if (!fs.existsSync('/proc/net/tcp')) return null;
  try {
    const inodes = new Set(socketInodes(port, TCP_STATE.LISTEN));
    const tree = new Set([pid]);
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === pid) tree.add(Number(entry));
      } catch {
        // gone meanwhile
      }
    }
    for (const member of tree) {
      let fds: string[];
      try {
        fds = fs.readdirSync(`/proc/${member}/fd`);
      } catch {
        // Gone (or going: a child that failed to listen exits while /healthz is polled): it holds
        // nothing. Read as "cannot tell", a decoy's answer on the port was taken for the child's.
        continue;
      }
      for (const fd of fds) {
        try {
          const socket = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${member}/fd/${fd}`));
          if (socket && inodes.has(socket[1]!)) return true;
        } catch {
          // closed meanwhile
        }
      }
    }
    return false;
  } catch {
    return null;
  }
}

/**
 * Starts the built server on a free port. NODE_ENV is `test` unless `env` sets it: shutdown and
 * other process behaviour must also be tested as `production` and `development` run.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: StartServerOptions = {},
): Promise<ServerProcess> {
  const dataDir = embeddedDataDir(env);
  if (dataDir && !options.freshDatabase) prepareDataDir(dataDir);
  // freePort's port is free when it is picked, not when the child listens: another test's process may
  // take it in between. The child then exits with the port-in-use line, and is started again on another.
  for (let attempt = 1; ; attempt++) {
    const started = await spawnServer(env, options, await (options.pickPort ?? freePort)());
    if (started !== PORT_TAKEN) return started;
    if (attempt === 3) throw new Error('server could not listen: three free ports taken before it started');
  }
}

const PORT_TAKEN = Symbol('port taken');

async function spawnServer(
  env: Record<string, string>,
  options: StartServerOptions,
  port: number,
): Promise<ServerProcess | typeof PORT_TAKEN> {
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, ...(options.nodeFlags ?? []), serverEntry], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let stderr = '';
  // Whole lines only: a chunk may end inside a line (a busy process writes many), whose rest comes next.
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    output.push(...lines.filter(Boolean));
  });
  child.stdout!.on('end', () => partial && output.push(partial));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // After the exit and the last of its output.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Generous: on a loaded shared machine a first start (a new PGlite database) has taken ~100 s.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed;
      if (/already in use/.test(stderr + output.join('\n'))) return PORT_TAKEN;
      throw new Error(`server exited with ${child.exitCode}: ${stderr}`);
    }
    try {
      // Only this child's answer counts: another process on the port (above) answers too.
      if ((await fetch(`${url}/healthz`)).ok && listenedOnBy(child.pid!, port) !== false) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start within 180 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built script (`dist/<script>`, as its npm script does after the build step) to its exit.
 * A script still running after `withinMs` is killed and answered with code null and a last stderr
 * line saying so: a start-up that should have failed but serves instead then fails its test at once,
 * with what it printed, not by Jest's timeout.
 */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  { withinMs = 90_000, user }: { withinMs?: number; user?: { uid: number; gid: number } } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.join(root, 'dist', script), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Another user (a test run as root starting the process as the image's unprivileged one).
    ...user,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, withinMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(deadline);
  if (killed) stderr += `\n${script} was still running after ${withinMs / 1000} s: killed by the test\n`;
  return { code: killed ? null : code, stdout, stderr };
}

/** Runs the built API-key CLI (`npm run apikey -- ...` without the build step). */
export const runApiKeyCli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  runScript('src/modules/auth/api-key.cli.js', args, env);

/** Creates a key with the CLI and returns its Authorization header (the key is the last line). */
export async function createApiKeyWithCli(
  scopes: string[],
  env: Record<string, string>,
): Promise<Record<string, string>> {
  // The key's database need not be created by the CLI: a copy of the migrated template will do.
  const dataDir = embeddedDataDir(env);
  if (dataDir) prepareDataDir(dataDir);
  const result = await runApiKeyCli(['create', '--name', 'test', '--scopes', scopes.join(',')], env);
  if (result.code !== 0) throw new Error(`apikey create failed: ${result.stderr}`);
  return { authorization: `Bearer ${result.stdout.trim().split('\n').at(-1)}` };
}

/**
 * The Authorization header of an admin key in the database `env` names, for a test whose subject is
 * not the CLI: a new PGLITE_DATA_DIR gets a copy of the template that already holds the run's admin
 * key (no CLI process, no second PGlite start). Anywhere else (a directory that already holds a
 * database, PostgreSQL) the CLI creates one, as createApiKeyWithCli does.
 */
export async function adminKeyFor(env: Record<string, string>): Promise<Record<string, string>> {
  const dataDir = embeddedDataDir(env);
  const key = process.env.PETSTORE_TEST_ADMIN_KEY;
  if (dataDir && key && prepareDataDir(dataDir, 'admin')) return { authorization: `Bearer ${key}` };
  return createApiKeyWithCli(['admin'], env);
}
