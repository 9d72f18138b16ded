/**
 * `npm run dev` (scripts/dev.js) runs the server under Node's `--watch`. In a terminal, a plain
 * `--watch` clears the screen on every restart, wiping the type error tsc printed a moment before.
 * This runs a program with the dev loop's own watch arguments in a pseudo-terminal (util-linux
 * `script`, so Node sees a TTY, as a developer's terminal is), changes it, and reads what the terminal got.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf } from '../helpers/describe-if';
import { pollUntil } from '../helpers/poll';
import { freePort, prepareDataDir } from '../helpers/server-process';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SERVER_WATCH_ARGS } = require('../../scripts/dev.js') as { SERVER_WATCH_ARGS: string[] };

const haveScript = spawnSync('script', ['--version']).status === 0;
const root = path.resolve(__dirname, '..', '..');

describeIf(haveScript, { needs: "util-linux's script (a pseudo-terminal)", run: 'apt-get install -y bsdutils' })(
  'the dev loop',
  () => {
    it('keeps what was printed before a restart on the screen (no clear)', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-dev-'));
      const program = path.join(dir, 'server.js');
      const typescript = path.join(dir, 'tty.log');
      fs.writeFileSync(program, 'console.log("first run");\n');
      const command = [process.execPath, ...SERVER_WATCH_ARGS, program].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qfec', command, typescript], { stdio: 'ignore' });
      const screen = () => (fs.existsSync(typescript) ? fs.readFileSync(typescript, 'utf8') : '');
      try {
        await pollUntil(
          async () => screen(),
          (s) => s.includes('first run'),
          30_000,
        );
        // As tsc re-emitting a compiled file does. "first run" on the screen does not mean --watch has
        // armed its watcher on the file yet (CI once wrote before it had, and no restart came), so the
        // change is written again every second until the restart shows.
        let lastWrite = 0;
        await pollUntil(
          async () => {
            if (Date.now() - lastWrite >= 1_000) {
              fs.writeFileSync(program, `console.log("second run"); // ${Date.now()}\n`);
              lastWrite = Date.now();
            }
            return screen();
          },
          (s) => s.includes('second run'),
          30_000,
        );
        // ESC c (full reset) or ESC [2J (erase display): what a plain --watch writes before restarting.
        expect(['\x1bc', '\x1b[2J'].filter((clear) => screen().includes(clear))).toEqual([]);
        expect(screen()).toMatch(/first run[\s\S]*second run/);
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('stops the server once on Ctrl-C: it drains and says stopped', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-dev-'));
      const dataDir = path.join(dir, 'data');
      prepareDataDir(dataDir);
      const typescript = path.join(dir, 'tty.log');
      const command = [process.execPath, path.join(root, 'scripts', 'dev.js')].map((a) => `'${a}'`).join(' ');
      // Ctrl-C typed into the terminal: the terminal signals its whole foreground process group.
      const child = spawn('script', ['-qfec', command, typescript], {
        cwd: root,
        stdio: ['pipe', 'ignore', 'ignore'],
        env: { ...process.env, HOST: '127.0.0.1', PORT: String(await freePort()), PGLITE_DATA_DIR: dataDir },
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const screen = () => (fs.existsSync(typescript) ? fs.readFileSync(typescript, 'utf8') : '');
      try {
        await pollUntil(
          async () => screen(),
          (s) => s.includes('petstore gateway ready'),
          120_000,
        );
        child.stdin!.write('\x03');
        await pollUntil(
          async () => screen(),
          (s) => /stopped|second SIG|exiting/.test(s),
          30_000,
        );
        await exited;
        expect(screen()).toMatch(/shutting down: finishing in-flight requests[\s\S]*stopped/);
        expect(screen()).not.toMatch(/second SIG/);
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  },
);
