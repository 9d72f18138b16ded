/**
 * Skipped suites say what they need and how to provide it (test/helpers/describe-if.ts), and no
 * suite skips any other way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeIf } from '../helpers/describe-if';

const written: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string) => {
  written.push(String(chunk));
  return true;
}) as typeof process.stderr.write;
try {
  describeIf(false, { needs: 'a unicorn', run: 'UNICORN=1 npm test' })('a suite that needs a unicorn', () => {
    it('never runs', () => {
      throw new Error('ran');
    });
  });
  describeIf(true, { needs: 'nothing', run: 'npm test' })('a suite whose needs are met', () => {
    it('runs', () => expect(true).toBe(true));
  });
} finally {
  process.stderr.write = realWrite;
}

describe('describeIf', () => {
  it('prints the file, the suite, what it needs and how to run it when it skips, and nothing when it runs', () => {
    expect(written).toEqual([
      'SKIPPED test/unit/describe-if.test.ts ("a suite that needs a unicorn"): needs a unicorn; to run it: UNICORN=1 npm test\n',
    ]);
  });

  it('is the only way a suite is skipped', () => {
    const root = path.resolve(__dirname, '..');
    const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const offenders = files.filter(
      (f) =>
        !/describe-if\.(test\.)?ts$/.test(f) &&
        /\bdescribe\.skip\b|\? describe :/.test(fs.readFileSync(path.join(root, f), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
