/** The schema-change check (scripts/schema-check.js, GraphQL Inspector): fails on an undeclared breaking change. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const root = path.resolve(__dirname, '../..');
const released = fs.readFileSync(path.join(root, 'schema/released.graphql'), 'utf8');

function check(current: string, declared: unknown[]): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-schema-'));
  try {
    fs.writeFileSync(path.join(dir, 'current.graphql'), current);
    fs.writeFileSync(path.join(dir, 'declared.json'), JSON.stringify({ declared }));
    const run = spawnSync(
      process.execPath,
      [
        path.join(root, 'scripts/schema-check.js'),
        path.join(dir, 'current.graphql'),
        'schema/released.graphql',
        path.join(dir, 'declared.json'),
      ],
      { encoding: 'utf8' },
    );
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the schema-change check', () => {
  it('passes the committed schema.graphql against the released one, with the committed declarations', () => {
    const { declared } = JSON.parse(fs.readFileSync(path.join(root, 'schema/breaking-changes.json'), 'utf8'));
    const result = check(fs.readFileSync(path.join(root, 'schema.graphql'), 'utf8'), declared);
    expect(result.output).toContain('0 undeclared breaking');
    expect(result.status).toBe(0);
  });

  it('fails on a removed field unless it is declared', () => {
    // Pet.name removed: a breaking change for every client that selects it.
    const withoutName = released.replace(/(type Pet [^{]*\{[^}]*?)\n\s+name: String!/, '$1');
    expect(withoutName).not.toBe(released);
    const refused = check(withoutName, []);
    expect(refused.status).toBe(1);
    expect(refused.output).toMatch(/BREAKING: FIELD_REMOVED Pet\.name/);
    const declared = check(withoutName, [{ type: 'FIELD_REMOVED', path: 'Pet.name', reason: 'test' }]);
    expect(declared.output).toMatch(/BREAKING \(declared\): FIELD_REMOVED Pet\.name/);
    expect(declared.status).toBe(0);
  });
});
