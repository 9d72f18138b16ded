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

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SERVER_WATCH_ARGS } = require('../../scripts/dev.js') as { SERVER_WATCH_ARGS: string[] };

const haveScript = spawnSync('script', ['--version']).status === 0;

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
  },
);
