#!/usr/bin/env node
/**
 * `npm run dev`: the development loop. The TypeScript compiler watches the sources and re-emits
 * dist/ on every save (tsc, because TypeGraphQL needs `emitDecoratorMetadata`, which esbuild-based
 * runners such as tsx do not emit); Node's own `--watch` restarts the server when its compiled files
 * change. Logs are the readable, coloured format unless LOG_FORMAT says otherwise. Ctrl-C stops both.
 */
const { spawn, execFileSync } = require('node:child_process');
const path = require('node:path');
const { TSC_ARGS } = require('./build-if-stale');

const root = path.resolve(__dirname, '..');

/**
 * How the server runs: Node's `--watch` restarts it on every re-emit, and `--watch-preserve-output`
 * keeps the terminal as it is (without it each restart clears the screen, wiping the type error tsc
 * has just printed). Exported for its test (test/unit/dev-loop.test.ts).
 */
const SERVER_WATCH_ARGS = ['--watch', '--watch-preserve-output'];
module.exports = { SERVER_WATCH_ARGS };

if (require.main === module) main();

function main() {
  execFileSync(process.execPath, [path.join(__dirname, 'build-if-stale.js')], { cwd: root, stdio: 'inherit' });

  const tsc = spawn(
    process.execPath,
    [require.resolve('typescript/bin/tsc', { paths: [root] }), ...TSC_ARGS, '--watch', '--preserveWatchOutput'],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  // In a process group of its own: Ctrl-C signals the terminal's whole group, and `--watch` passes
  // the signal it gets on to the server, so the server had it twice ("second SIGINT, exiting": no
  // drain, an error line at every Ctrl-C). Here only this script gets it and stops the watcher, which
  // stops the server once.
  const server = spawn(process.execPath, [...SERVER_WATCH_ARGS, path.join('dist', 'src', 'main.js')], {
    cwd: root,
    stdio: 'inherit',
    env: { LOG_FORMAT: 'pretty', NODE_ENV: 'development', ...process.env },
    detached: true,
  });

  let stopping = false;
  const stop = (code) => {
    if (stopping) return;
    stopping = true;
    tsc.kill('SIGTERM');
    server.kill('SIGTERM');
    server.once('exit', () => process.exit(code));
  };
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
  // A closed terminal hangs up its foreground group only, which the server is no longer in.
  process.on('SIGHUP', () => stop(0));
  tsc.on('exit', (code) => stop(code ?? 1));
  server.on('exit', (code) => {
    if (!stopping) {
      stopping = true;
      tsc.kill('SIGTERM');
      process.exit(code ?? 1);
    }
  });
}
