/**
 * With trusted documents on, SIGHUP re-reads their manifests (docs/trusted-documents.md): it never
 * stops the gateway. A SIGHUP that reached a worker still starting (a manifest rotated while the
 * primary starts or replaces a worker) killed it, since nothing listened for the signal yet: at start
 * the whole gateway stopped, exit 1, "a worker stopped before the gateway was ready (its line above
 * says why)" with no line above. PostgreSQL only (workers need it): a database of its own on
 * TEST_DATABASE_URL's server, dropped after.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { freePort, TEST_NODE_FLAGS } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('SIGHUP with trusted documents, while a worker starts', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hangup-'));
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let url: string;
  beforeAll(async () => {
    database = await createPostgresDatabase();
    url = database.url;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('leaves the starting worker alone: the gateway gets ready, and stops with 0', async () => {
    const body = 'query Typename { __typename }';
    const manifest = path.join(tmp, 'manifest.json');
    fs.writeFileSync(
      manifest,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [
          { id: crypto.createHash('sha256').update(body).digest('hex'), name: 'Typename', type: 'query', body },
        ],
      }),
    );
    const child = spawn(process.execPath, [...TEST_NODE_FLAGS, path.resolve(__dirname, '../../dist/src/main.js')], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        WEB_CONCURRENCY: '2',
        DATABASE_URL: url,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        TRUSTED_DOCUMENTS: 'allow',
        TRUSTED_DOCUMENTS_FILE: manifest,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: { role?: string; msg: string }[] = [];
    let partial = '';
    const waiters: { msg: string; resolve: () => void }[] = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const split = (partial + chunk).split('\n');
      partial = split.pop()!;
      for (const line of split.filter(Boolean)) {
        const parsed = JSON.parse(line) as { role?: string; msg: string };
        lines.push(parsed);
        for (const w of waiters) if (parsed.role === 'primary' && parsed.msg === w.msg) w.resolve();
      }
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const primarySays = (msg: string) =>
      Promise.race([
        new Promise<void>((resolve) => waiters.push({ msg, resolve })),
        exited.then(() => {
          throw new Error(`exited before "${msg}": ${JSON.stringify(lines.map((l) => l.msg))}`);
        }),
      ]);
    // The first worker is forked, and is loading its modules: the manifest is "rotated" now.
    await primarySays('worker started');
    child.kill('SIGHUP');
    await primarySays('petstore gateway ready');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.map((l) => l.msg)).not.toContain('worker died; replacing it');
  });
});
