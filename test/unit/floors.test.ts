/**
 * The floors of src/ (docs/architecture.md): no import circle between files, and at most two imports
 * running back up a floor, as `npm run check:floors` measures them (scripts/floors.js).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

describe('the floors of src/', () => {
  it('has no import circle and at most two imports running back up a floor', () => {
    const run = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'floors.js')], {
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('Import circles between files: 0');
    expect(run.status).toBe(0);
  });
});
