/**
 * A runtime shipped without its migrations (prisma/migrations left out of an image, or shadowed by a
 * volume mounted over prisma/): the migrate command and the gateway's start stop with one line naming
 * the directory, where the migrate command said "database is up to date (0 migration(s))" and the
 * gateway served on a database without tables (every request INTERNAL, /readyz 200).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { TEST_NODE_FLAGS } from '../helpers/server-process';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '..', '..');

describe('a runtime without its migrations', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-missing-'));
  const runtime = path.join(tmp, 'runtime');
  const migrations = path.join(runtime, 'prisma', 'migrations');

  beforeAll(() => {
    // The runtime as scripts/build-runtime.js makes it, from this build, with the checkout's modules.
    execFileSync(
      process.execPath,
      [path.join(root, 'scripts', 'build-runtime.js'), runtime, '--no-build', '--no-install'],
      {
        stdio: 'ignore',
      },
    );
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(runtime, 'node_modules'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const run = (script: string, dataDir: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.join(runtime, 'dist', script)], {
        cwd: runtime,
        env: { PATH: process.env.PATH, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', PGLITE_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      // A gateway that started (the failure) is stopped after 20 s.
      const timer = setTimeout(() => child.kill('SIGTERM'), 20_000);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  it.each([
    [
      'empty',
      () => {
        fs.rmSync(migrations, { recursive: true });
        fs.mkdirSync(migrations);
      },
    ],
    ['missing', () => fs.rmSync(migrations, { recursive: true, force: true })],
  ])('%s: the migrate command and the start stop, naming the directory', async (_, remove) => {
    remove();
    for (const script of ['src/db/migrate.cli.js', 'src/main.js']) {
      const result = await run(script, path.join(tmp, `data-${script.replace(/\W/g, '-')}-${_}`));
      expect(result.code).toBe(1);
      expect(result.stdout).not.toMatch(/up to date|gateway ready/);
      expect(result.stderr.split('\n').filter(Boolean)).toEqual([
        expect.stringMatching(/^No migrations in .*prisma\/migrations: /),
      ]);
    }
  });
});
