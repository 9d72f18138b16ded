/**
 * `npm install` on every Node line the project supports prints no EBADENGINE warning: every package
 * of the lock file accepts the lowest version of each line that package.json's `engines` allows
 * (Node 20.19, 22.13, 24.0). A dependency that drops a line (as @apollo/subgraph 2.15 dropped Node
 * 20) fails here, before a user's install warns.
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

describe('engines', () => {
  const supported: string = read('package.json').engines.node;
  const lines = supported.split('||').map((range) => semver.minVersion(range.trim())!.version);

  it('names Node 20, 22 and 24', () => {
    expect(lines.map((v) => semver.major(v))).toEqual([20, 22, 24]);
  });

  it.each(lines)('has no package in the lock file that refuses Node %s', (version) => {
    const packages: Record<string, { version?: string; engines?: { node?: string } }> =
      read('package-lock.json').packages;
    const refusing = Object.entries(packages)
      .filter(([name, p]) => name !== '' && p.engines?.node && !semver.satisfies(version, p.engines.node))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} wants node ${p.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
