/**
 * Issue 30, item 4: in production a start that fails writes JSON lines like every other line (one
 * per problem: `level` 60, `msg`, and the `setting` to change), not plain text a log pipeline drops
 * or splits; at a terminal outside production the lines stay plain text. And item 2's refusal: the
 * embedded database is one process, so WEB_CONCURRENCY > 1 without DATABASE_URL is one such line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { freePort, runScript } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-fatal-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface FatalJson {
  level: number;
  msg: string;
  setting?: string;
  time: number;
  pid: number;
}

async function failed(script: string, env: Record<string, string>) {
  // A fatal line comes within seconds; a process still up after 30 s has started instead of failing.
  const result = await runScript(
    script,
    [],
    { HOST: '127.0.0.1', PORT: '0', PGLITE_DATA_DIR: path.join(tmp, 'data'), ...env },
    { withinMs: 30_000 },
  );
  return { code: result.code, lines: result.stderr.split('\n').filter(Boolean), stdout: result.stdout };
}

const parsed = (lines: string[]): FatalJson[] => lines.map((l) => JSON.parse(l) as FatalJson);

/** Runs `fn` with the port of a PostgreSQL without TLS (it answers 'N' to the SSLRequest, then closes). */
async function withoutTls(fn: (port: number) => Promise<void>): Promise<void> {
  const net = await import('node:net');
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end('N'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn((server.address() as { port: number }).port);
  } finally {
    server.close();
  }
}

describe('fatal start-up lines', () => {
  it('are one JSON line per invalid setting in production, naming it', async () => {
    const { code, lines } = await failed('src/main.js', { NODE_ENV: 'production', PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(code).toBe(1);
    const json = parsed(lines);
    expect(json).toHaveLength(2);
    for (const line of json)
      expect(line).toMatchObject({ level: 60, time: expect.any(Number), pid: expect.any(Number) });
    expect(json.map((l) => l.setting).sort()).toEqual(['LOG_LEVEL', 'PORT']);
    expect(json.find((l) => l.setting === 'PORT')!.msg).toMatch(/^Invalid configuration: PORT: /);
  });

  it('say what a number setting takes, one line per setting, for any bad number', async () => {
    // `PORT=abc` said "expected number, received NaN"; a value past 2^53 gave two lines, one of them
    // about 9007199254740991.
    const { code, lines } = await failed('src/main.js', {
      NODE_ENV: 'production',
      PORT: 'abc',
      SHUTDOWN_TIMEOUT_MS: '1e99',
      DB_POOL_SIZE: '1.5',
    });
    expect(code).toBe(1);
    expect(parsed(lines).map(({ setting, msg }) => ({ setting, msg }))).toEqual([
      { setting: 'PORT', msg: 'Invalid configuration: PORT: must be a whole number from 0 to 65535, not "abc"' },
      {
        setting: 'DB_POOL_SIZE',
        msg: 'Invalid configuration: DB_POOL_SIZE: must be a whole number from 1 to 200, not "1.5"',
      },
      {
        setting: 'SHUTDOWN_TIMEOUT_MS',
        msg: 'Invalid configuration: SHUTDOWN_TIMEOUT_MS: must be a whole number from 100 to 600000, not "1e99"',
      },
    ]);
  });

  // node-postgres warns once, through process.emitWarning, that sslmode=require means verify-full:
  // Node printed it as nine plain lines on stderr, beside the JSON lines.
  it("are JSON lines only, a Node warning (node-postgres' on sslmode=require) logged as one of them", async () => {
    await withoutTls(async (port) => {
      const { code, lines, stdout } = await failed('src/main.js', {
        NODE_ENV: 'production',
        DATABASE_URL: `postgresql://petstore:secret@127.0.0.1:${port}/petstore?sslmode=require`,
      });
      expect(code).toBe(1);
      expect(parsed(lines)).toEqual([expect.objectContaining({ level: 60, setting: 'DATABASE_URL' })]);
      const logged = parsed(stdout.split('\n').filter(Boolean));
      expect(logged).toEqual([
        expect.objectContaining({ level: 40, msg: expect.stringMatching(/^SECURITY WARNING: The SSL modes/) }),
      ]);
    });
  });

  it('stay plain text outside production', async () => {
    const { code, lines } = await failed('src/main.js', { NODE_ENV: 'development', PORT: 'eighty' });
    expect(code).toBe(1);
    expect(lines).toEqual(['Invalid configuration:', expect.stringMatching(/^ {2}PORT: /)]);
  });

  it('name a DATABASE_URL that pg cannot read (a # in its password) as configuration, never echoing it', async () => {
    const { code, lines } = await failed('src/main.js', {
      NODE_ENV: 'development',
      DATABASE_URL: 'postgresql://app:pa#ss@127.0.0.1:5432/petstore',
    });
    expect(code).toBe(1);
    expect(lines).toEqual(['Invalid configuration:', expect.stringMatching(/^ {2}DATABASE_URL: is not a URL \(/)]);
    expect(lines.join('\n')).not.toContain('pa#ss');
  });

  it('refuse WEB_CONCURRENCY > 1 on the embedded database in one line naming it (no process forked)', async () => {
    const { code, lines, stdout } = await failed('src/main.js', { NODE_ENV: 'production', WEB_CONCURRENCY: '2' });
    expect(code).toBe(1);
    expect(parsed(lines)).toEqual([
      expect.objectContaining({
        level: 60,
        setting: 'WEB_CONCURRENCY',
        msg: expect.stringContaining(
          'needs DATABASE_URL (PostgreSQL): the embedded database is opened by one process only',
        ),
      }),
    ]);
    expect(stdout).toBe('');
  });

  it('refuse an in-process response cache over half the heap the image allows, naming RESPONSE_CACHE_MAX_BYTES', async () => {
    const { code, lines } = await failed('src/main.js', {
      NODE_ENV: 'production',
      // The bound docs/deployment.md ("Memory") gives as its example.
      NODE_OPTIONS: '--max-semi-space-size=16 --max-old-space-size=256',
      RESPONSE_CACHE_TTL_S: '60',
      RESPONSE_CACHE_MAX_BYTES: String(512 * 1024 * 1024),
    });
    expect(code).toBe(1);
    expect(parsed(lines)).toEqual([
      expect.objectContaining({
        level: 60,
        setting: 'RESPONSE_CACHE_MAX_BYTES',
        msg: expect.stringMatching(/512 MiB is more than half of this process's heap limit \(\d+ MiB\)/),
      }),
    ]);
  });

  // The listener that failed is named, not always PORT: a metrics port in use blamed PORT (free).
  it.each([
    ['PORT', (port: number) => ({ PORT: String(port) })],
    ['METRICS_PORT', (port: number) => ({ PORT: '0', METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' })],
  ] as const)('name the setting of an explained failure: a port in use is %s', async (setting, env) => {
    const net = await import('node:net');
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    try {
      const port = (holder.address() as { port: number }).port;
      const { code, lines } = await failed('src/main.js', { NODE_ENV: 'production', ...env(port) });
      expect(code).toBe(1);
      expect(parsed(lines)).toEqual([
        expect.objectContaining({
          level: 60,
          setting,
          msg: expect.stringMatching(new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 is already in use.*set ${setting} `)),
        }),
      ]);
    } finally {
      holder.close();
    }
  });

  it('name the setting of an explained failure: a metrics address that is not this machine is METRICS_HOST', async () => {
    const { code, lines } = await failed('src/main.js', {
      NODE_ENV: 'production',
      PORT: '0',
      METRICS_PORT: String(await freePort()),
      METRICS_HOST: '10.255.255.1',
    });
    expect(code).toBe(1);
    expect(parsed(lines)).toEqual([
      expect.objectContaining({
        level: 60,
        setting: 'METRICS_HOST',
        msg: expect.stringMatching(/^METRICS_HOST 10\.255\.255\.1 is not an address of this machine/),
      }),
    ]);
  });

  // A name that does not resolve (a typo, a host name of another machine) was an unexplained error
  // with its stack (getaddrinfo ENOTFOUND), naming no setting.
  it.each([
    ['HOST', async () => ({ HOST: 'no-such-host.invalid' })],
    [
      'METRICS_HOST',
      async () => ({ PORT: '0', METRICS_PORT: String(await freePort()), METRICS_HOST: 'no-such-host.invalid' }),
    ],
  ] as const)('name the setting of an explained failure: a name that does not resolve is %s', async (setting, env) => {
    const { code, lines } = await failed('src/main.js', { NODE_ENV: 'production', ...(await env()) });
    expect(code).toBe(1);
    expect(parsed(lines.filter((l) => l.includes('"level":60')))).toEqual([
      expect.objectContaining({
        level: 60,
        setting,
        msg: expect.stringMatching(
          new RegExp(`^${setting} no-such-host\\.invalid is not an address this machine can resolve`),
        ),
      }),
    ]);
  });
});

describeIf(usingPostgres(), NEEDS_POSTGRES)('the migrate command, on a database that does not exist', () => {
  it('explains it as the server does, in one JSON line naming DATABASE_URL', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = '/petstore_no_such_database';
    const { code, lines } = await failed('src/db/migrate.cli.js', {
      NODE_ENV: 'production',
      DATABASE_URL: url.toString(),
    });
    expect(code).toBe(1);
    expect(parsed(lines)).toEqual([
      expect.objectContaining({
        level: 60,
        setting: 'DATABASE_URL',
        msg: expect.stringMatching(/does not exist.*Create it \(createdb petstore_no_such_database/),
      }),
    ]);
  });
});

describe('the migrate command in production', () => {
  // node-postgres warns (process.emitWarning) that sslmode=require means verify-full, as a managed
  // PostgreSQL's URL has it: Node printed nine plain lines on stderr beside the command's JSON lines.
  it("writes JSON lines only, node-postgres' warning on sslmode=require one of them", async () => {
    await withoutTls(async (port) => {
      const { code, lines } = await failed('src/db/migrate.cli.js', {
        NODE_ENV: 'production',
        DATABASE_URL: `postgresql://petstore:secret@127.0.0.1:${port}/petstore?sslmode=require`,
      });
      expect(code).toBe(1);
      expect(parsed(lines)).toEqual([
        expect.objectContaining({ level: 40, msg: expect.stringMatching(/^SECURITY WARNING: The SSL modes/) }),
        expect.objectContaining({ level: 60, setting: 'DATABASE_URL' }),
      ]);
    });
  });
});

describeIf(usingPostgres(), NEEDS_POSTGRES)("the migrate command with the gateway's replicas set", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  beforeAll(async () => {
    database = await createPostgresDatabase();
  });
  afterAll(() => database?.drop());

  // The replicas' checks said "replica-1 (...) taken out of reads" as a plain line on stderr.
  it('migrates the primary, writing JSON lines only, whatever the replicas do', async () => {
    const closed = await freePort();
    const replica = Object.assign(new URL(database.url), { host: `127.0.0.1:${closed}` }).toString();
    const result = await runScript('src/db/migrate.cli.js', [], {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      DATABASE_REPLICA_URLS: replica,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^applied \d+ migration\(s\)/);
    expect(result.stderr.split('\n').filter((l) => l && !l.startsWith('{'))).toEqual([]);
  });
});

/**
 * Ports below 1024 need a privilege the image's user (`node`) lacks: `PORT=80` there fails to listen
 * with EACCES. On the embedded database that line blamed PGLITE_DATA_DIR ("Cannot write the embedded
 * database directory"), on PostgreSQL it was an unexplained error with its stack; it names the port's
 * setting. Run as an unprivileged user (nobody, when the tests run as root) where such ports are
 * privileged (Linux's default).
 */
const unprivilegedPortStart = (() => {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
  } catch {
    return 0;
  }
})();
const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
/**
 * Whether that user can load the build: not where the checkout sits in a directory only its owner may
 * enter (a clone in a `mktemp -d` directory, mode 700, as a fresh-clone check makes).
 */
const userCanRun = (() => {
  if (!user) return true;
  const entry = path.resolve(__dirname, '..', '..', 'dist', 'src', 'config.js');
  return (
    spawnSync(process.execPath, ['-e', `require(${JSON.stringify(entry)})`], { ...user, stdio: 'ignore' }).status === 0
  );
})();
describeIf(unprivilegedPortStart > 80 && userCanRun, {
  needs:
    'Linux with ports below 1024 privileged (net.ipv4.ip_unprivileged_port_start), and, run as root, a checkout the user nobody may read',
  run: 'npm test -- test/deploy/fatal-lines.test.ts on such a host',
})('a port this user may not listen on', () => {
  const dataDir = path.join(tmp, 'unprivileged', 'data');
  beforeAll(() => {
    // The unprivileged user creates the database (and its lock file beside it) here.
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    fs.chmodSync(tmp, 0o755);
    fs.chmodSync(path.dirname(dataDir), 0o777);
  });

  it.each([
    ['PORT', 80, { PORT: '80' }],
    ['METRICS_PORT', 90, { PORT: '0', METRICS_PORT: '90', METRICS_HOST: '127.0.0.1' }],
  ] as const)('is one line naming %s', async (setting, port, env) => {
    const result = await runScript(
      'src/main.js',
      [],
      { HOST: '127.0.0.1', NODE_ENV: 'production', PGLITE_DATA_DIR: dataDir, ...env },
      { withinMs: 60_000, user },
    );
    expect(result.code).toBe(1);
    expect(parsed(result.stderr.split('\n').filter((l) => l.includes('"level":60')))).toEqual([
      expect.objectContaining({
        level: 60,
        setting,
        msg: expect.stringMatching(
          new RegExp(`^Port ${port} on 127\\.0\\.0\\.1 may not be listened on .*Set ${setting} to 1024 or above`),
        ),
      }),
    ]);
  });
});
