/**
 * docs/configuration.md and src/config.ts agree: every variable the configuration reads has a row in
 * the page, every row names a variable something reads, and every default the page states is the
 * one the code applies (the configuration given the documented value equals the configuration given
 * nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';

const root = path.resolve(__dirname, '..', '..');
const page = fs.readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');

/** The rows of the page's tables: variable and default cell. */
const rows = [...page.matchAll(/^\| `([A-Z][A-Z0-9_]*\*?)` \| ([^|]*) \|/gm)].map((m) => ({
  variable: m[1]!,
  defaultCell: m[2]!.trim(),
}));

/** The variables of src/config.ts's schema. */
function schemaVariables(): string[] {
  const source = fs.readFileSync(path.join(root, 'src', 'config.ts'), 'utf8');
  const schema = source.slice(source.indexOf('const envSchema'), source.indexOf('export interface AuthConfig'));
  return [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

/** Read outside the schema: the file of variables itself, and tracing's switches (src/telemetry). */
const READ_ELSEWHERE = ['ENV_FILE', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_*'];

/**
 * Defaults that depend on more than the variable: the log format on whether stdout is a terminal
 * (not so under Jest). Each is covered by its own test.
 */
const CONTEXTUAL = ['LOG_FORMAT'];

describe('docs/configuration.md', () => {
  it('documents every variable src/config.ts reads, once', () => {
    const documented = rows.map((r) => r.variable);
    expect(documented.length).toBeGreaterThan(50);
    expect(schemaVariables().filter((v) => !documented.includes(v))).toEqual([]);
    expect(documented.filter((v, i) => documented.indexOf(v) !== i)).toEqual([]);
  });

  it('documents no variable that nothing reads', () => {
    const read = new Set([...schemaVariables(), ...READ_ELSEWHERE]);
    expect(rows.map((r) => r.variable).filter((v) => !read.has(v))).toEqual([]);
  });

  it('states the defaults the code applies', () => {
    const stated = rows.filter((r) => r.defaultCell.startsWith('`') && !CONTEXTUAL.includes(r.variable));
    expect(stated.length).toBeGreaterThan(40);
    const defaults = loadConfig({});
    const wrong = stated
      .map((r) => ({ variable: r.variable, value: /^`([^`]*)`/.exec(r.defaultCell)![1]! }))
      .filter(({ variable, value }) => {
        try {
          return JSON.stringify(loadConfig({ [variable]: value })) !== JSON.stringify(defaults);
        } catch {
          return true;
        }
      });
    expect(wrong).toEqual([]);
  });

  it('agrees with .env.example, which lists each variable with its default', () => {
    const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
    const defaults = JSON.stringify(loadConfig({}));
    const listed = [...example.matchAll(/^# ?([A-Z][A-Z0-9_]+)=(\S*)/gm)]
      .map((m) => ({ variable: m[1]!, value: m[2]! }))
      .filter(({ variable, value }) => value !== '' && !READ_ELSEWHERE.includes(variable));
    expect(listed.length).toBeGreaterThan(40);
    const wrong = listed.filter(({ variable, value }) => {
      try {
        return JSON.stringify(loadConfig({ [variable]: value })) !== defaults;
      } catch {
        return true;
      }
    });
    expect(wrong).toEqual([]);
  });

  it('agrees with the defaults the other pages quote beside a variable ("`RATE_LIMIT_MAX` (300)", "30 s (`REQUEST_TIMEOUT_MS`)")', () => {
    const variables = new Set(schemaVariables());
    const defaults = JSON.stringify(loadConfig({}));
    const files = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
      f.endsWith('.md'),
    );
    const quoted: { where: string; variable: string; value: string }[] = [];
    const number = String.raw`(\d[\d,]*(?:\.\d+)?)(?: (s|ms|KiB|MiB))?`;
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      const after = new RegExp(String.raw`\x60([A-Z][A-Z0-9_]+)\x60 \(${number}[),;]`, 'g');
      const before = new RegExp(String.raw`${number} \(\x60([A-Z][A-Z0-9_]+)\x60[),]`, 'g');
      for (const m of text.matchAll(after))
        quoted.push({ where: file, variable: m[1]!, value: inUnits(m[1]!, m[2]!, m[3]) });
      for (const m of text.matchAll(before))
        quoted.push({ where: file, variable: m[3]!, value: inUnits(m[3]!, m[1]!, m[2]) });
    }
    const checked = quoted.filter((q) => variables.has(q.variable));
    expect(checked.length).toBeGreaterThan(20);
    const wrong = checked.filter(({ variable, value }) => {
      try {
        return JSON.stringify(loadConfig({ [variable]: value })) !== defaults;
      } catch {
        return true;
      }
    });
    expect(wrong).toEqual([]);
  });
});

/** A quoted quantity as the variable's own unit: `30 s` of a `_MS` variable is 30000, `1 MiB` 1048576. */
function inUnits(variable: string, amount: string, unit: string | undefined): string {
  const n = Number(amount.replaceAll(',', ''));
  const factor =
    unit === 's' && variable.endsWith('_MS') ? 1000 : unit === 'MiB' ? 1024 * 1024 : unit === 'KiB' ? 1024 : 1;
  return String(n * factor);
}
