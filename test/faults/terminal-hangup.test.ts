/**
 * A server started in a terminal (`npm start`) whose terminal then goes away (its window closed, an
 * ssh session dropped): the kernel sends SIGHUP, which stops the server, and every write to the
 * terminal fails with EIO from then on. The server must still stop and exit, releasing its port and
 * its database. It did not: pino stops logging on a broken pipe (EPIPE) but took EIO for an error, so
 * the stop ended in "second error, exiting" and the exit then retried the unwritten line every 100 ms
 * forever (JSON lines); Node 20 also aborted on exit restoring the gone terminal's settings and spun at
 * full CPU in its crash handler (pretty lines). Runs the server in a pseudo-terminal (util-linux
 * `script`), as a developer's terminal does, and closes it.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf } from '../helpers/describe-if';
import { pollUntil } from '../helpers/poll';
import { freePort, prepareDataDir } from '../helpers/server-process';

jest.setTimeout(120_000);

const haveScript = spawnSync('script', ['--version']).status === 0;
const root = path.resolve(__dirname, '..', '..');

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeIf(haveScript, { needs: "util-linux's script (a pseudo-terminal)", run: 'apt-get install -y bsdutils' })(
  'a server whose terminal closes',
  () => {
    it.each(['json', 'pretty'])('stops and exits, its log lines (%s) lost with the terminal', async (format) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-hangup-'));
      const dataDir = path.join(dir, 'data');
      prepareDataDir(dataDir);
      const typescript = path.join(dir, 'tty.log');
      const port = await freePort();
      const command = [process.execPath, path.join(root, 'dist', 'src', 'main.js')].map((a) => `'${a}'`).join(' ');
      const terminal = spawn('script', ['-qfec', command, typescript], {
        cwd: root,
        stdio: ['pipe', 'ignore', 'ignore'],
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), PGLITE_DATA_DIR: dataDir, LOG_FORMAT: format },
      });
      let server: number | undefined;
      try {
        await pollUntil(
          async () => (fs.existsSync(typescript) ? fs.readFileSync(typescript, 'utf8') : ''),
          (s) => s.includes('petstore gateway ready'),
          60_000,
        );
        server = Number(spawnSync('pgrep', ['-P', String(terminal.pid)], { encoding: 'utf8' }).stdout.trim());
        expect(server).toBeGreaterThan(0);
        // The terminal goes away: its master side closes, the server's side hangs up.
        terminal.kill('SIGKILL');
        await pollUntil(
          async () => running(server!),
          (alive) => !alive,
          30_000,
        ).catch(() => undefined);
        expect(running(server)).toBe(false);
        // Its port is free again.
        await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      } finally {
        terminal.kill('SIGKILL');
        if (server && running(server)) process.kill(server, 'SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
