/**
 * The primary's replacement delays (src/cluster.ts): a worker that dies after running a while is
 * replaced at once; deaths in a row of workers that die young back off, doubling, to a ceiling, so a
 * crash loop does not spin. (The processes themselves: test/deploy/cluster.test.ts.)
 */
import { respawnDelay } from '../../src/cluster';

describe('respawnDelay', () => {
  it('replaces at once, then backs off 0.5 s doubling to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(respawnDelay)).toEqual([
      0, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });
});
