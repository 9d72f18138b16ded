/**
 * The container's health check (`node dist/src/healthcheck.js`, Dockerfile) asks GET /readyz where the
 * server listens: HOST, when it is one address rather than a wildcard. It asked 127.0.0.1 whatever
 * HOST said, so a gateway bound to its own address (HOST=10.0.0.5, a pod's IP) was reported unhealthy
 * while it served.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, prepareDataDir, runScript } from '../helpers/server-process';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '..', '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-healthcheck-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

it('asks /readyz on HOST when the server listens on one address only', async () => {
  // Another loopback address than 127.0.0.1 (Linux answers on all of 127.0.0.0/8).
  const host = '127.0.0.2';
  const port = String(await freePort());
  const dataDir = path.join(tmp, 'data');
  prepareDataDir(dataDir);
  const server = spawn(process.execPath, [path.join(root, 'dist', 'src', 'main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: host, PORT: port, PGLITE_DATA_DIR: dataDir },
    stdio: 'ignore',
  });
  try {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const ok = await fetch(`http://${host}:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || server.exitCode !== null) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 200));
    }
    const check = await runScript('src/healthcheck.js', [], { HOST: host, PORT: port }, { withinMs: 10_000 });
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: '' });
    // The image's HOST (a wildcard) is asked on loopback, as before.
    const wildcard = await runScript('src/healthcheck.js', [], { HOST: '0.0.0.0', PORT: port }, { withinMs: 10_000 });
    expect(wildcard.code).toBe(1);
    expect(wildcard.stderr).toContain(`http://127.0.0.1:${port}/readyz`);
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  }
});
