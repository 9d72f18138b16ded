/**
 * Start-up as a person sees it, on real processes (`node dist/src/main.js`): readable progress
 * lines, and each failure a person can fix answered by ONE line naming the setting and the fix
 * (no stack), exit code 1.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { freePort, runScript, startServerProcess } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';
import { fakeRedis } from '../helpers/refusing-redis';

jest.setTimeout(120_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-startup-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A port nothing listens on, and the server that held it while we asked. */
async function listeningServer(): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;

/** Runs the server to its exit (it must fail); its stderr's lines. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  // Every failure here comes within seconds (the slowest, a retry, within DB_STARTUP_RETRY_MS = 20 s).
  const result = await runScript(
    'src/main.js',
    [],
    { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    { withinMs: 45_000 },
  );
  return { code: result.code, lines: result.stderr.split('\n').filter(Boolean) };
}

const noStack = (lines: string[]) => expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);

/**
 * A server that answers every connection's startup packet with one FATAL ErrorResponse, written out
 * (protocol v3): neither PostgreSQL 13 nor a PgBouncer refusing a login runs here.
 */
async function refusingServer(code: string, message: string): Promise<net.Server> {
  const field = (type: string, value: string) => Buffer.concat([Buffer.from(type), Buffer.from(`${value}\0`)]);
  const body = Buffer.concat([
    field('S', 'FATAL'),
    field('V', 'FATAL'),
    field('C', code),
    field('M', message),
    Buffer.from([0]),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  const refusal = Buffer.concat([Buffer.from('E'), length, body]);
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end(refusal));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/**
 * PostgreSQL 13 answering a setting it does not know (the gateway's sessions start with
 * `enable_memoize=off`, which came in 14): FATAL 42704.
 */
const postgres13 = () => refusingServer('42704', 'unrecognized configuration parameter "enable_memoize"');

describe('starting the service', () => {
  it('says what it does: creating the database, each migration, and where it is ready', async () => {
    const dataDir = path.join(tmp, 'fresh');
    const server = await startServerProcess({ PGLITE_DATA_DIR: dataDir }, { freshDatabase: true });
    await server.stop();
    const messages = server.output.map((l) => JSON.parse(l) as { msg: string; graphql?: string });
    const count = fs
      .readdirSync(path.resolve(__dirname, '..', '..', 'prisma', 'migrations'))
      .filter((d) => /^\d/.test(d)).length;
    expect(messages.map((m) => m.msg)).toEqual(
      expect.arrayContaining([
        `creating the embedded database in ${dataDir} (first start, a few seconds)`,
        expect.stringMatching(new RegExp(`^applying migration 1 of ${count}: `)),
        expect.stringMatching(new RegExp(`^applying migration ${count} of ${count}: `)),
        'petstore gateway ready',
      ]),
    );
    expect(messages.find((m) => m.msg === 'petstore gateway ready')?.graphql).toMatch(
      /^http:\/\/localhost:\d+\/graphql$/,
    );
  });

  it('warns, once, when production runs on the embedded database (no DATABASE_URL), and not in development', async () => {
    const production = await startServerProcess({ NODE_ENV: 'production', PGLITE_DATA_DIR: path.join(tmp, 'prod') });
    await production.stop();
    const warnings = (server: { output: string[] }) =>
      server.output
        .map((l) => JSON.parse(l) as { level: number; msg: string })
        .filter((m) => m.level === 40 && /without DATABASE_URL/.test(m.msg));
    expect(warnings(production)).toEqual([
      expect.objectContaining({ msg: expect.stringMatching(/embedded database.*set DATABASE_URL/) }),
    ]);
    const development = await startServerProcess({ PGLITE_DATA_DIR: path.join(tmp, 'prod') });
    await development.stop();
    expect(warnings(development)).toEqual([]);
  });

  it('answers a port in use with one line naming PORT', async () => {
    const holder = await listeningServer();
    try {
      const { code, lines } = await failedStart({
        PORT: String(portOf(holder)),
        PGLITE_DATA_DIR: path.join(tmp, 'port'),
      });
      expect(code).toBe(1);
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^Port ${portOf(holder)} on 127\\.0\\.0\\.1 is already in use.*set PORT`)),
      ]);
      // Said before any database work: the embedded database was not even created.
      expect(fs.existsSync(path.join(tmp, 'port'))).toBe(false);
    } finally {
      holder.close();
    }
  });

  it('answers a data directory it cannot create with one line naming PGLITE_DATA_DIR', async () => {
    // A directory inside a regular file: refused even to root (chmod is not, as CI runs as root).
    const file = path.join(tmp, 'not-a-directory');
    fs.writeFileSync(file, '');
    const { code, lines } = await failedStart({ PGLITE_DATA_DIR: path.join(file, 'data') });
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(/^Cannot write the embedded database directory .*\(PGLITE_DATA_DIR\): ENOTDIR\..*writable/),
    ]);
  });

  it('answers a PGLITE_DATA_DIR that names a file with one line', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, 'not a database');
    const { code, lines } = await failedStart({ PGLITE_DATA_DIR: file });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^PGLITE_DATA_DIR \(.*a-file\) names a file, not a directory\./)]);
  });

  it('answers an unexpected failure with one line, and its stack only at LOG_LEVEL=debug', async () => {
    // A failure nobody wrote a message for: every listen() throws (a module preloaded for it).
    const preload = path.join(tmp, 'listen-throws.js');
    fs.writeFileSync(
      preload,
      "require('node:net').Server.prototype.listen = function () { throw new TypeError('listen is broken'); };\n",
    );
    const broken = { NODE_OPTIONS: `--require ${preload}` };
    const quiet = await failedStart(broken);
    expect(quiet.code).toBe(1);
    expect(quiet.lines).toEqual([
      expect.stringMatching(/^petstore gateway could not start: TypeError: listen is broken/),
      '(run with LOG_LEVEL=debug for the details)',
    ]);
    const debug = await failedStart({ ...broken, LOG_LEVEL: 'debug' });
    expect(debug.lines[0]).toMatch(/^petstore gateway could not start: TypeError: listen is broken/);
    expect(debug.lines.some((l) => /^\s+at /.test(l))).toBe(true);
  });

  it('answers a damaged data directory with one line naming PGLITE_DATA_DIR', async () => {
    const dataDir = path.join(tmp, 'damaged');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'PG_VERSION'), '17\n');
    const { code, lines } = await failedStart({ PGLITE_DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        /^The embedded database in .* \(PGLITE_DATA_DIR\) could not be opened.*Move the directory away/,
      ),
    ]);
  });

  it('retries a PostgreSQL server that does not answer for DB_STARTUP_RETRY_MS, saying every few seconds that it is still waiting, then says so in one line naming DATABASE_URL', async () => {
    const port = await freePort(); // nothing listens there
    // Attempts at 0, 0.25, 0.75, 1.75, 3.75 and 7.75 s (backoff doubling from 0.25 s), then at the
    // deadline: the one at 7.75 s is the first 5 s after the first line (src/db/startup.ts), so it says it
    // is still waiting once, with 2 s to spare on a loaded machine.
    const result = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: `postgresql://petstore:secret@127.0.0.1:${port}/petstore`,
      DB_STARTUP_RETRY_MS: '10000',
    });
    expect(result.code).toBe(1);
    const messages = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages[0]).toMatch(/^waiting for PostgreSQL at .*; retrying$/);
    expect(
      messages.filter((m) => /^still waiting for PostgreSQL at .*: \d+ s of 10 s \(DB_STARTUP_RETRY_MS\)/.test(m))
        .length,
    ).toBeGreaterThanOrEqual(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Cannot reach the PostgreSQL server of DATABASE_URL \\(postgresql://petstore:\\*\\*\\*@127\\.0\\.0\\.1:${port}/petstore\\) after trying for 10 s: .*ECONNREFUSED`,
        ),
      ),
    ]);
    expect(`${result.stdout}${result.stderr}`).not.toContain('secret');
    noStack(lines);
  });

  it('keeps a password given as a query parameter of DATABASE_URL out of its lines', async () => {
    const port = await freePort(); // nothing listens there
    // libpq's URI form, and node-postgres, take the password from `?password=` too.
    const result = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: `postgresql://petstore@127.0.0.1:${port}/petstore?sslmode=disable&password=hunter2pw`,
      DB_STARTUP_RETRY_MS: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Cannot reach the PostgreSQL server of DATABASE_URL \(.*password=\*\*\*/);
    expect(`${result.stdout}${result.stderr}`).not.toContain('hunter2pw');
  });
});

describe('starting on a PostgreSQL older than 14', () => {
  it('stops at once with one line naming DATABASE_URL and the version needed', async () => {
    const server = await postgres13();
    try {
      const { code, lines } = await failedStart({
        DATABASE_URL: `postgresql://petstore:secret@127.0.0.1:${portOf(server)}/petstore`,
        // Not a server that is still starting: no waiting, whatever DB_STARTUP_RETRY_MS allows.
        DB_STARTUP_RETRY_MS: '20000',
      });
      expect(code).toBe(1);
      expect(lines).toEqual([
        expect.stringMatching(
          /^The PostgreSQL server of DATABASE_URL \(.*\) does not know a setting .*enable_memoize.*PostgreSQL 14 or later/,
        ),
      ]);
      noStack(lines);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('starting behind a PgBouncer that refuses the login', () => {
  // PgBouncer refuses with SQLSTATE 08P01, the class of a server still starting: only the message says
  // the login itself was refused, which waiting does not fix.
  it.each([
    [
      'a wrong password',
      'password authentication failed',
      /^PostgreSQL refused the connection of DATABASE_URL \(.*\): password authentication failed\. Fix the user, password or grants in DATABASE_URL\.$/,
    ],
    [
      'a user not in its auth_file',
      '"trust" authentication failed',
      /^PostgreSQL refused the connection of DATABASE_URL .*Fix the user, password or grants/,
    ],
    [
      'a database it does not know',
      'no such database: petstore',
      /^The database of DATABASE_URL \(.*\) does not exist: no such database: petstore\. Create it \(createdb petstore/,
    ],
  ])('answers %s at once with one line naming DATABASE_URL', async (_what, message, expected) => {
    const server = await refusingServer('08P01', message);
    try {
      const { code, lines } = await failedStart({
        DATABASE_URL: `postgresql://petstore:secret@127.0.0.1:${portOf(server)}/petstore?pgbouncer=true`,
        // Not a server that is still starting: no waiting, whatever DB_STARTUP_RETRY_MS allows.
        DB_STARTUP_RETRY_MS: '20000',
      });
      expect(code).toBe(1);
      expect(lines).toEqual([expect.stringMatching(expected)]);
      noStack(lines);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('starting on a PostgreSQL that asks for a password DATABASE_URL does not give', () => {
  /**
   * PostgreSQL 14+ asking for SCRAM (its default), written out: AuthenticationSASL after the startup
   * packet, then AuthenticationSASLContinue after the client's first message, where node-postgres
   * needs the password it does not have.
   */
  async function scramServer(): Promise<net.Server> {
    const auth = (code: number, data: Buffer) => {
      const head = Buffer.alloc(9);
      head.write('R', 0);
      head.writeInt32BE(8 + data.length, 1);
      head.writeInt32BE(code, 5);
      return Buffer.concat([head, data]);
    };
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      let step = 0;
      socket.on('data', () => {
        step += 1;
        if (step === 1) socket.write(auth(10, Buffer.from('SCRAM-SHA-256\0\0')));
        else if (step === 2) socket.write(auth(11, Buffer.from('r=abc,s=c2FsdA==,i=4096')));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  // A secret left out of a template: the URL has no password. It was taken for a server not up yet:
  // DB_STARTUP_RETRY_MS of waiting, then "Cannot reach the PostgreSQL server ... Start the server".
  it('stops at once with one line naming DATABASE_URL and the password it lacks', async () => {
    const server = await scramServer();
    try {
      const { code, lines } = await failedStart({
        DATABASE_URL: `postgresql://petstore@127.0.0.1:${portOf(server)}/petstore`,
        DB_STARTUP_RETRY_MS: '20000',
      });
      expect(code).toBe(1);
      expect(lines).toEqual([
        expect.stringMatching(
          /^The PostgreSQL server of DATABASE_URL \(postgresql:\/\/petstore@127\.0\.0\.1:\d+\/petstore\) asks for a password, and DATABASE_URL has none\. Put the role's password in DATABASE_URL/,
        ),
      ]);
      noStack(lines);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('starting with a REDIS_URL that names a database the Redis does not have', () => {
  // ioredis served the connection on database 0 after the refused SELECT: the counters went into
  // another database than the one configured while /readyz said `ok (redis)`.
  it('stops with one line naming REDIS_URL', async () => {
    // A Redis with the default 16 databases: SELECT past 15 is refused.
    const server = await fakeRedis(([name, db]) =>
      name === 'SELECT' && Number(db) > 15 ? '-ERR DB index is out of range\r\n' : undefined,
    );
    try {
      const { code, lines } = await failedStart({
        PGLITE_DATA_DIR: path.join(tmp, 'redis-db'),
        REDIS_URL: `redis://127.0.0.1:${server.port}/99`,
      });
      expect(code).toBe(1);
      expect(lines).toEqual([
        expect.stringMatching(
          /^REDIS_URL names Redis database 99, which this Redis refuses \(ERR DB index is out of range\)\. Fix the number at the end of REDIS_URL/,
        ),
      ]);
      noStack(lines);
    } finally {
      server.close();
    }
  });
});

describeIf(usingPostgres(), NEEDS_POSTGRES)('starting on PostgreSQL', () => {
  it('answers a database that does not exist with one line naming DATABASE_URL and how to create it', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = '/petstore_does_not_exist';
    const { code, lines } = await failedStart({ DATABASE_URL: url.toString(), DB_STARTUP_RETRY_MS: '30000' });
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        /^The database of DATABASE_URL \(.*\/petstore_does_not_exist\) does not exist: .*createdb petstore_does_not_exist/,
      ),
    ]);
  });

  it("answers a setting of DATABASE_URL's options that the server does not know with one line naming it, at once", async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.searchParams.set('options', '-c no_such_setting=1');
    const { code, lines } = await failedStart({ DATABASE_URL: url.toString(), DB_STARTUP_RETRY_MS: '20000' });
    expect(code).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(
        /^The PostgreSQL server of DATABASE_URL \(.*\) does not know a setting .*no_such_setting.*Fix the options parameter of DATABASE_URL\.$/,
      ),
    ]);
    noStack(lines);
  });

  it('waits for a PostgreSQL server that starts after it, then serves', async () => {
    const database = await createPostgresDatabase();
    // A server that is not up yet: the first connections are cut; a second after the first one it
    // starts forwarding to the real server.
    const real = new URL(database.url);
    let up = false;
    let cut = 0;
    const proxy = net.createServer((socket) => {
      if (!up) {
        if (cut++ === 0) setTimeout(() => (up = true), 1000);
        socket.destroy();
        return;
      }
      const upstream = net.connect(Number(real.port || 5432), real.hostname);
      socket.pipe(upstream).pipe(socket);
      const end = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', end);
      upstream.on('error', end);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(portOf(proxy));
    try {
      const server = await startServerProcess({ DATABASE_URL: viaProxy.toString(), DB_STARTUP_RETRY_MS: '30000' });
      const answer = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ categories { totalCount } }' }),
      });
      expect(await answer.json()).toEqual({ data: { categories: { totalCount: 0 } } });
      expect(await server.stop()).toBe(0);
      const messages = server.output.map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(cut).toBeGreaterThan(0);
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^waiting for PostgreSQL at .*; retrying$/),
          'PostgreSQL answers now',
        ]),
      );
    } finally {
      proxy.close();
      await database.drop();
    }
  });
});
