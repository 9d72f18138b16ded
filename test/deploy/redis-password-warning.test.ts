/**
 * In production every line the gateway writes is JSON (docs/deployment.md), a warning of a
 * dependency too. ioredis wrote its AUTH warnings (a REDIS_URL with a password for a Redis that asks
 * none, on every connection) with console.warn, as plain text on stderr: patches/ioredis+5.9.3.patch
 * makes them process warnings, which the gateway logs as JSON lines like node-postgres' own.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_REDIS } from '../helpers/describe-if';
import { freePort, prepareDataDir, TEST_NODE_FLAGS } from '../helpers/server-process';

jest.setTimeout(120_000);

const redisUrl = process.env.TEST_REDIS_URL;

describeIf(Boolean(redisUrl), NEEDS_REDIS)('a REDIS_URL with a password the Redis does not ask for', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-password-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is warned of in a JSON line, and every line is JSON', async () => {
    const dataDir = path.join(tmp, 'data');
    prepareDataDir(dataDir);
    const withPassword = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    withPassword.password = 'not-asked-for';
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.resolve(__dirname, '../../dist/src/main.js')], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        PGLITE_DATA_DIR: dataDir,
        REDIS_URL: withPassword.toString(),
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const ready = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
        if (stdout.includes('"petstore gateway ready"')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await ready;
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = (stdout + stderr).split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/does not require a password/) }),
    );
  });
});
