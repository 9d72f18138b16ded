/**
 * WEB_CONCURRENCY workers stopped while the first one is still starting (a deploy rolled back at
 * once, a scale-down right after a scale-up): the primary starts no other worker once told to stop,
 * and exits 0 when the one it started has stopped, never announcing "ready" after "shutting down".
 * PostgreSQL only (workers need it): a database of its own on TEST_DATABASE_URL's
 * server, dropped after.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { freePort, TEST_NODE_FLAGS } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('WEB_CONCURRENCY=2 stopped while its first worker starts', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-stop-'));
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let url: string;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    url = database.url;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('forks no other worker once told to stop, and exits 0', async () => {
    // The workers' listen() is held back 2 s, and what the primary tells them 3 s: the stop reaches the
    // primary while the first worker's server is about to listen, and the worker listens before it
    // hears of the stop (as a worker whose listen was already under way does).
    const preload = path.join(tmp, 'slow-worker.js');
    fs.writeFileSync(
      preload,
      [
        "const cluster = require('node:cluster');",
        "const net = require('node:net');",
        'if (cluster.isWorker) {',
        '  const listen = net.Server.prototype.listen;',
        '  net.Server.prototype.listen = function (...args) {',
        "    process.stderr.write('listen held back\\n');",
        '    setTimeout(() => listen.apply(this, args), 2000);',
        '    return this;',
        '  };',
        '  const on = process.on;',
        '  process.on = function (event, listener) {',
        "    if (event !== 'message') return on.call(this, event, listener);",
        '    return on.call(this, event, (...args) => setTimeout(() => listener(...args), 3000));',
        '  };',
        '}',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.resolve(__dirname, '../../dist/src/main.js')], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        NODE_OPTIONS: `--require ${preload}`,
        WEB_CONCURRENCY: '2',
        DATABASE_URL: url,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        SHUTDOWN_TIMEOUT_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const held = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        if (stderr.includes('listen held back')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await held;
    child.kill('SIGTERM');
    const code = await exited;
    const primary = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { role?: string; msg: string })
      .filter((l) => l.role === 'primary')
      .map((l) => l.msg);
    expect(primary.filter((m) => m === 'worker started')).toHaveLength(1);
    expect(primary).not.toContain('petstore gateway ready');
    expect(primary).not.toContain('workers did not stop in time: killing them');
    expect(code).toBe(0);
  });
});
