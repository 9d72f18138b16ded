#!/usr/bin/env node
/**
 * Makes the runtime an operator ships: a directory holding only what production runs.
 *
 *   node scripts/build-runtime.js <out-dir> [--no-build] [--no-install] [--prefer-offline]
 *
 * <out-dir> gets (and nothing else):
 *   dist/src/, dist/prisma/   the compiled server and CLIs, with every file they read at run time
 *                              (favicon, explorer script: `npm run build` copies them beside the modules)
 *   prisma/migrations/        the SQL the migrate command (and MIGRATE_ON_START) applies
 *   package.json              this one with production scripts only (start, db:migrate, db:seed,
 *                              apikey: straight to dist/, never a build step) and a postinstall that
 *                              applies patches/ and nothing else (`prisma generate` is a development
 *                              step: the client is compiled in dist/)
 *   package-lock.json         as committed
 *   node_modules/             production dependencies (`npm ci --omit=dev`) unless --no-install,
 *                              with the fixes of patches/ applied (patches/README.md)
 *   patches/                  those fixes, applied by the runtime's own install wherever it runs
 *
 * The Dockerfile's build stage runs this same script (docs/deployment.md), and a test
 * (test/deploy/runtime.test.ts) runs it into a temporary directory and starts the result, so what the
 * image holds is tested on machines without a container engine.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

/** The npm scripts of the runtime: each runs built code directly (no build-if-stale). */
const RUNTIME_SCRIPTS = {
  start: 'node dist/src/main.js',
  'db:migrate': 'node dist/src/db/migrate.cli.js',
  'db:seed': 'node dist/prisma/seed.js',
  apikey: 'node dist/src/modules/auth/api-key.cli.js',
};

/**
 * The runtime's postinstall: the fixes of patches/ applied to its node_modules by whoever installs it,
 * here or on the target host after --no-install (`npm ci --omit=dev` there). It was applied by this
 * script alone, so a runtime installed on the target host ran unpatched dependencies, silently (a
 * subscription with `@skip` on its root field closed the socket with 4500). patch-package is a
 * development dependency, absent from a production install: npm runs the checkout's version of it
 * (from its cache when it holds it); a patch that does not apply fails the install.
 */
function applyPatchesScript() {
  const { version } = require(require.resolve('patch-package/package.json', { paths: [root] }));
  return `npx --yes patch-package@${version} --error-on-fail --error-on-warn`;
}

/** What is copied from the checkout, relative to it (directories whole). */
const COPIED = ['dist/src', 'dist/prisma', 'prisma/migrations', 'prisma/schema.prisma', 'package-lock.json', 'patches'];

function usage(message) {
  console.error(
    `${message}\nusage: node scripts/build-runtime.js <out-dir> [--no-build] [--no-install] [--prefer-offline]`,
  );
  process.exit(2);
}

function main(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const positional = argv.filter((a) => !a.startsWith('--'));
  for (const flag of flags) {
    if (!['--no-build', '--no-install', '--prefer-offline'].includes(flag)) usage(`unknown option ${flag}`);
  }
  if (positional.length !== 1) usage('one output directory is needed');
  const out = path.resolve(positional[0]);
  if (out === root || root.startsWith(out + path.sep)) usage(`${out} contains the checkout`);

  if (!flags.has('--no-build')) {
    execFileSync(process.execPath, [path.join(__dirname, 'build-if-stale.js'), '--force'], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const item of COPIED) {
    const from = path.join(root, item);
    if (!fs.existsSync(from)) throw new Error(`${item} is missing: run npm run build first`);
    fs.cpSync(from, path.join(out, item), {
      recursive: true,
      // The incremental build's state is not part of the runtime.
      filter: (src) => !/\.(tsbuildinfo|build-stamp)$/.test(src),
    });
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  // Dependencies and devDependencies stay as they are: `npm ci` checks package.json against the lock
  // (--omit=dev leaves the dev ones out); only the scripts change.
  manifest.scripts = { ...RUNTIME_SCRIPTS, postinstall: applyPatchesScript() };
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  if (!flags.has('--no-install')) {
    const npmArgs = ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'];
    if (flags.has('--prefer-offline')) npmArgs.push('--prefer-offline');
    // The runtime's postinstall applies patches/ (see applyPatchesScript).
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', npmArgs, {
      cwd: out,
      stdio: 'inherit',
      // The runtime is installed as production installs it, whatever the caller's NODE_ENV.
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }
  console.error(`runtime in ${out}: start it with NODE_ENV=production node dist/src/main.js (docs/deployment.md)`);
}

module.exports = { RUNTIME_SCRIPTS, COPIED };
if (require.main === module) main(process.argv.slice(2));
