/**
 * `.env.example` lists every variable the configuration reads, and `.env` files are read without
 * overriding the real environment (real processes: `node dist/src/main.js`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScript } from '../helpers/server-process';

const root = path.resolve(__dirname, '..', '..');

/** The variables src/config.ts reads: the keys of its schema, and those read outside it. */
function configVariables(): string[] {
  const source = fs.readFileSync(path.join(root, 'src', 'config.ts'), 'utf8');
  const schema = source.slice(source.indexOf('const envSchema'), source.indexOf('export type DatabaseConfig'));
  const keys = [...schema.matchAll(/^ +([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
  const direct = [...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!);
  return [...new Set([...keys, ...direct])];
}

describe('.env.example', () => {
  it('lists every variable src/config.ts reads', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(20);
    expect(variables.filter((v) => !listed.has(v))).toEqual([]);
  });
});

describe('.env', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-env-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  // A data directory inside a regular file fails at once, naming the directory: it shows which
  // value the service used without starting a database.
  const blocker = path.join(tmp, 'file');
  fs.writeFileSync(blocker, '');
  const envFile = path.join(tmp, '.env');
  fs.writeFileSync(envFile, `# a comment\nPGLITE_DATA_DIR=${blocker}/from-env-file\n`);

  it('is read when present', async () => {
    const result = await runScript('src/main.js', [], { ENV_FILE: envFile, NODE_ENV: 'development', PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${blocker}/from-env-file (PGLITE_DATA_DIR)`);
  });

  it('never overrides a variable set in the environment', async () => {
    const result = await runScript('src/main.js', [], {
      ENV_FILE: envFile,
      NODE_ENV: 'development',
      PORT: '0',
      PGLITE_DATA_DIR: `${blocker}/from-environment`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${blocker}/from-environment (PGLITE_DATA_DIR)`);
  });

  it('names a missing ENV_FILE', async () => {
    const result = await runScript('src/main.js', [], { ENV_FILE: path.join(tmp, 'missing.env') });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Invalid configuration:\n  ENV_FILE: ${path.join(tmp, 'missing.env')} does not exist`,
    );
  });

  it('names an ENV_FILE that is a directory, in one line, never a TypeError', async () => {
    const result = await runScript('src/main.js', [], { ENV_FILE: tmp });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Invalid configuration:\n  ENV_FILE: ${tmp} is a directory, not a file of NAME=value lines`,
    );
  });
});
