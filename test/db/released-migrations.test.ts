/**
 * A migration is never edited once released: every database it migrated would be refused by each
 * later release ("was changed after it was applied"), with a fix only the project can make (it
 * happened once: test/db/edited-migration.test.ts). Each migration's checksum, as the runner computes
 * it, is pinned in test/db/released/checksums.json: a new migration is added there in the commit that
 * brings it, and from then on its file stays as it is; a change is a new migration.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readMigrations } from '../../src/db/migrate';

const pinned = JSON.parse(fs.readFileSync(path.join(__dirname, 'released', 'checksums.json'), 'utf8')) as Record<
  string,
  string
>;

describe('released migrations', () => {
  const migrations = readMigrations();

  it.each(migrations.map((m) => [m.name, m.checksum]))('%s is as it was released', (name, checksum) => {
    if (!(name in pinned)) {
      throw new Error(
        `${name} is not in test/db/released/checksums.json: add "${name}": "${checksum}" with it (once released, it is never edited)`,
      );
    }
    if (pinned[name] !== checksum) {
      throw new Error(
        `${name} was edited after its release (checksum ${checksum}, released ${pinned[name]}): restore the file ` +
          '(git checkout) and write the change as a new migration',
      );
    }
  });

  // A checkout with core.autocrlf (Windows) would write the files with CRLF, and a runtime built from it
  // would see every migration as edited (.gitattributes keeps them LF). Where git is at hand.
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' });
    } catch {
      return null;
    }
  };
  (git(['rev-parse', '--is-inside-work-tree']) ? it : it.skip)(
    'keep their line ends in any checkout (git checks them out LF, whatever core.autocrlf says)',
    () => {
      const files = migrations.map((m) => `prisma/migrations/${m.name}/migration.sql`);
      const attrs = git(['check-attr', 'eol', '--', ...files])!;
      expect(attrs.trim().split('\n')).toEqual(files.map((f) => `${f}: eol: lf`));
    },
  );

  it('every released migration is still there', () => {
    expect(Object.keys(pinned).filter((name) => !migrations.some((m) => m.name === name))).toEqual([]);
  });
});
