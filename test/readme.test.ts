/**
 * The README's walkthrough runs as written: every fenced block whose info string says
 * `walkthrough` (```sh walkthrough, ```graphql walkthrough) is run in order against a fresh, seeded
 * server process: shell blocks through bash (with KEY set as the README tells the reader to, and the
 * server's address in place of localhost:4000), GraphQL blocks POSTed to /graphql with the key.
 * Blocks without the marker (other sections, placeholders) are left alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKeyWithCli, runScript, startServerProcess, type ServerProcess } from './helpers/server-process';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '..');

export interface Block {
  lang: string;
  code: string;
  line: number;
}

/** The README's fenced blocks marked `walkthrough`, in order. */
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

describe('the README walkthrough', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-readme-'));
  const env = { PGLITE_DATA_DIR: path.join(dataDir, 'data') };
  let server: ServerProcess;
  let key: string;
  beforeAll(async () => {
    // Step 1 of the walkthrough: seed, then start.
    const seeded = await runScript('prisma/seed.js', [], env);
    expect(seeded.stdout).toMatch(/seeded 5 categories and 17 pets/);
    server = await startServerProcess(env);
    key = (await createApiKeyWithCli(['admin'], env)).authorization.replace('Bearer ', '');
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const blocks = walkthroughBlocks(fs.readFileSync(path.join(root, 'README.md'), 'utf8'));

  it('has shell and GraphQL blocks to run', () => {
    expect(blocks.filter((b) => b.lang === 'sh').length).toBeGreaterThanOrEqual(3);
    expect(blocks.filter((b) => b.lang === 'graphql').length).toBeGreaterThanOrEqual(3);
    expect(blocks.every((b) => b.lang === 'sh' || b.lang === 'graphql')).toBe(true);
  });

  it('runs every block in order, as written, without an error', async () => {
    const failures: string[] = [];
    for (const block of blocks) {
      const where = `README.md:${block.line} (${block.lang})`;
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
      expect({ line: block.line, body: await res.json() }).toEqual({
        line: block.line,
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
      expect({ line: block.line, code, error: /"errors"\s*:|"code"\s*:\s*"[A-Z_]+"/.test(out) }).toEqual({
        line: block.line,
        code: 0,
        error: false,
      });
    }
  });
});
