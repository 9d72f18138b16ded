#!/usr/bin/env node
/**
 * `npm run codegen`: GraphQL Code Generator from this folder, installed here on first use (and again
 * when this folder's lock file changes). Kept out of the project's own install because its
 * dependencies declare Node >= 22.12 (npm would print EBADENGINE warnings on Node 20); it runs fine
 * on 20 for what we use. Arguments are passed on to graphql-codegen; a `--config` of them replaces the
 * top-level codegen.yml (`npm run example:codegen` uses examples/client/codegen.yml).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = __dirname;
const root = path.resolve(here, '..', '..');
const lock = path.join(here, 'package-lock.json');
const stamp = path.join(here, 'node_modules', '.installed-lock');
const wanted = fs.readFileSync(lock, 'utf8');
if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== wanted) {
  console.error('codegen: installing GraphQL Code Generator into tools/codegen (first use) ...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--prefix', here, '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: process.platform === 'win32',
  });
  fs.writeFileSync(stamp, wanted);
}
const cli = path.join(here, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
const args = process.argv.slice(2);
const config = args.includes('--config') ? [] : ['--config', path.join(root, 'codegen.yml')];
execFileSync(process.execPath, [cli, ...config, ...args], {
  cwd: root,
  stdio: 'inherit',
  // The preset is looked up from the project root; NODE_PATH lets that lookup find this folder's packages.
  env: { ...process.env, NODE_PATH: path.join(here, 'node_modules') },
});
