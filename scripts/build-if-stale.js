#!/usr/bin/env node
/**
 * Builds the TypeScript (`tsc -p tsconfig.build.json`) only when a source is newer than the last
 * build, so `npm start`, `npm run apikey` and `npm run db:seed` start at once after the first time
 * (a build costs about 5 s). `--force` always builds.
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

function main() {
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  const changed = Math.max(...inputs.map((p) => newest(path.join(root, p))));
  if (process.argv.includes('--force') || changed > built) {
    const started = Date.now();
    console.error(built ? 'building the TypeScript (sources changed) ...' : 'building the TypeScript (first run) ...');
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [root] }), ...TSC_ARGS], {
      cwd: root,
      stdio: 'inherit',
    });
    // Stamped with the time the build started: a file saved during the build is seen next time.
    fs.writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
    fs.utimesSync(stamp, started / 1000, started / 1000);
    console.error(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

if (require.main === module) main();
