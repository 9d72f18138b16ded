#!/usr/bin/env node
/**
 * Builds the TypeScript (`tsc -p tsconfig.build.json`) only when a source is newer than the last
 * build, so `npm start`, `npm run apikey` and `npm run db:seed` start at once after the first time
 * (a build costs about 5 s). `--force` always builds.
 *
 * A build also copies every file of src/ that is not TypeScript (the favicon, the explorer's browser
 * script, ...) to the same place under dist/src/: the server reads them beside its modules, so dist/
 * holds everything it reads at run time (the runtime an operator ships: scripts/build-runtime.js).
 *
 * With NODE_ENV=production nothing is ever built on the way (a production host runs what was built
 * and tested): a stale or missing build stops the command with one line naming `npm run build`.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/**
 * Incremental, with its build info in dist/: a rebuild compiles only what changed, and `npm run dev`'s
 * `tsc --watch` (same arguments) starts without re-emitting everything (which would restart the server).
 */
const TSC_ARGS = ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'];
module.exports = { TSC_ARGS };
const stamp = path.join(root, 'dist', '.build-stamp');
const inputs = ['src', 'prisma', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

/** The newest modification time under `p` (files only), or 0 when it does not exist. */
function newest(p) {
  let stat;
  try {
    stat = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = 0;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, entry)));
  return max;
}

/**
 * Copies every file under `from` that tsc does not compile (not `.ts`) to the same path under `to`;
 * returns the paths copied, relative to `from`. src/generated holds TypeScript only.
 */
function copyAssets(from = path.join(root, 'src'), to = path.join(root, 'dist', 'src')) {
  const copied = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(from, rel), { withFileTypes: true })) {
      const file = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile() && !entry.name.endsWith('.ts')) {
        fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
        fs.copyFileSync(path.join(from, file), path.join(to, file));
        copied.push(file);
      }
    }
  };
  walk('');
  return copied;
}
module.exports.copyAssets = copyAssets;

function main() {
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  const changed = Math.max(...inputs.map((p) => newest(path.join(root, p))));
  const force = process.argv.includes('--force');
  if (!force && process.env.NODE_ENV === 'production' && changed > built) {
    console.error(
      built
        ? 'dist/ is older than the sources and NODE_ENV=production never builds on its own: run npm run build first.'
        : 'dist/ has not been built and NODE_ENV=production never builds on its own: run npm run build first.',
    );
    process.exit(1);
  }
  if (force || changed > built) {
    const started = Date.now();
    console.error(built ? 'building the TypeScript (sources changed) ...' : 'building the TypeScript (first run) ...');
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), ...TSC_ARGS], {
      cwd: root,
      stdio: 'inherit',
    });
    copyAssets();
    // Stamped with the time the build started: a file saved during the build is seen next time.
    fs.writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
    fs.utimesSync(stamp, started / 1000, started / 1000);
    console.error(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (require.main === module) main();
