/**
 * The documentation's walkthrough runs as written: every fenced block whose info string says
 * `walkthrough` (```sh walkthrough, ```graphql walkthrough) in README.md and docs/*.md is run in order
 * (README.md, then docs/getting-started.md, then the other pages by name) against a fresh server
 * process, started before anything is seeded (the docs seed through the running server): shell blocks
 * through bash (with KEY set as the docs tell the reader to, and the server's address in place of
 * localhost:4000), GraphQL blocks POSTed to /graphql with the key. Blocks without the marker
 * (placeholders, illustrations) are left alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminKeyFor, startServerProcess, type ServerProcess } from './helpers/server-process';

// Every `npm run` block starts npm, the build check and a script: on a loaded machine that is seconds each.
jest.setTimeout(300_000);

const root = path.resolve(__dirname, '..');

export interface Block {
  lang: string;
  code: string;
  line: number;
  /** The file it is in (set by the suite; walkthroughBlocks leaves it unset). */
  file?: string;
}

/** The markdown files whose walkthrough blocks run, in the order they run (paths from the project root). */
export function documentationFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort((a, b) => (a === 'getting-started.md' ? -1 : b === 'getting-started.md' ? 1 : a.localeCompare(b)))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** A markdown file's fenced blocks marked `walkthrough`, in order. */
export function walkthroughBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\w+)[ \t]+walkthrough[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of markdown.matchAll(fence)) {
    blocks.push({ lang: m[1]!, code: m[2]!, line: markdown.slice(0, m.index).split('\n').length });
  }
  return blocks;
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('the walkthrough of the README and docs/', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-readme-'));
  // Development tokens on (getting started, step 8, restarts the server with them), their key here.
  const env = {
    PGLITE_DATA_DIR: path.join(dataDir, 'data'),
    AUTH_DEV_TOKENS: 'true',
    AUTH_DEV_KEY_FILE: path.join(dataDir, 'dev-token-key.json'),
  };
  let server: ServerProcess;
  let key: string;
  beforeAll(async () => {
    // The test's own key comes with the data directory (a copy of the run's template holding an admin
    // key, and nothing else); then, as a reader does, the server starts first and the walkthrough
    // seeds through it (and makes its own key with the CLI).
    key = (await adminKeyFor(env)).authorization.replace('Bearer ', '');
    server = await startServerProcess(env);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const blocks = documentationFiles().flatMap((file) =>
    walkthroughBlocks(fs.readFileSync(path.join(root, file), 'utf8')).map((b) => ({ ...b, file })),
  );

  it('seeds through the running server, in the order the docs give', async () => {
    const seed = blocks.find((b) => b.code.includes('db:seed'));
    expect(seed && blocks.indexOf(seed)).toBe(0);
  });

  it('has shell and GraphQL blocks to run', () => {
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(3);
    expect(blocks.filter((b) => b.lang === 'graphql').length).toBeGreaterThanOrEqual(3);
    expect(blocks.every((b) => b.lang === 'sh' || b.lang === 'graphql')).toBe(true);
  });

  it('runs every block in order, as written, without an error', async () => {
    const failures: string[] = [];
    for (const block of blocks) {
      const where = `${block.file}:${block.line} (${block.lang})`;
      if (block.lang === 'graphql') {
        const res = await fetch(`${server.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ query: block.code }),
        });
        const body = (await res.json()) as { data?: unknown; errors?: unknown[] };
        if (res.status !== 200 || body.errors || !body.data)
          failures.push(`${where}: ${res.status} ${JSON.stringify(body)}`);
        continue;
      }
      const script = block.code.replaceAll('localhost:4000', server.url.replace(/^http:\/\//, ''));
      const { code, out } = await bash(script, {
        PATH: process.env.PATH!,
        HOME: process.env.HOME ?? dataDir,
        KEY: key,
        ...env,
      });
      // Answers are JSON: a GraphQL error or a REST Error object is a failure too.
      if (code !== 0 || /"errors"\s*:|"code"\s*:\s*"[A-Z_]+"/.test(out))
        failures.push(`${where}: exit ${code}\n${out}`);
    }
    expect(failures).toEqual([]);
  });

  it('runs again without colliding with what the first run made', async () => {
    for (const block of blocks.filter((b) => b.lang === 'graphql')) {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: block.code }),
      });
      expect({ where: `${block.file}:${block.line}`, body: await res.json() }).toEqual({
        where: `${block.file}:${block.line}`,
        body: { data: expect.anything() },
      });
    }
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      const script = block.code.replaceAll('localhost:4000', server.url.replace(/^http:\/\//, ''));
      const { code, out } = await bash(script, {
        PATH: process.env.PATH!,
        HOME: process.env.HOME ?? dataDir,
        KEY: key,
        ...env,
      });
      expect({
        where: `${block.file}:${block.line}`,
        code,
        error: /"errors"\s*:|"code"\s*:\s*"[A-Z_]+"/.test(out),
      }).toEqual({
        where: `${block.file}:${block.line}`,
        code: 0,
        error: false,
      });
    }
  });
});
