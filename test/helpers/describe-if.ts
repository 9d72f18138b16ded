/**
 * Suites that need something a newcomer's machine may not have (PostgreSQL, Redis, Chromium) run
 * only where it is present, and otherwise say what they need and how to provide it, in one shape:
 *
 *   describeIf(usingPostgres(), { needs: 'a PostgreSQL server', run: 'TEST_DATABASE_URL=postgresql://... npm test' })
 *     ('two gateway processes sharing one PostgreSQL database', () => { ... });
 */
import path from 'node:path';

export interface SkipReason {
  /** What the suite needs: "a PostgreSQL server". */
  needs: string;
  /** How to provide it: the command or setting that makes the suite run. */
  run: string;
}

/** The suite's file, relative to the project, from the caller's stack frame. */
function callerFile(): string {
  const frame = new Error().stack?.split('\n')[3] ?? '';
  const match = /\(?([^()\s]+\.test\.ts)(?::\d+)*\)?/.exec(frame);
  return match ? path.relative(path.resolve(__dirname, '..', '..'), match[1]!) : 'a test suite';
}

/** `describe` when `condition` holds; otherwise `describe.skip` and a line saying why and how to run it. */
export function describeIf(condition: boolean, reason: SkipReason): jest.Describe {
  if (condition) return describe;
  const file = callerFile();
  const skip = ((name: string, fn: jest.EmptyFunction) => {
    // Written straight to stderr: Jest shows no console output for a suite whose tests are all skipped.
    process.stderr.write(`SKIPPED ${file} ("${name}"): needs ${reason.needs}; to run it: ${reason.run}\n`);
    return describe.skip(name, fn);
  }) as jest.Describe;
  return Object.assign(skip, describe);
}

/** The commands, named once. */
export const NEEDS_POSTGRES: SkipReason = {
  needs: 'a PostgreSQL server',
  run: 'TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test npm test (CI does)',
};
export const NEEDS_REDIS: SkipReason = {
  needs: 'a Redis server',
  run: 'TEST_REDIS_URL=redis://127.0.0.1:6379 npm test (CI does)',
};
export const NEEDS_CHROMIUM = (executable: string): SkipReason => ({
  needs: `Chromium at ${executable}`,
  run: 'apt-get install -y chromium (Debian), or set CHROMIUM_PATH to a Chromium or Chrome binary',
});
