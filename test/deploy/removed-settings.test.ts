/**
 * A setting an earlier release read and this one does not (src/config.ts REMOVED_SETTINGS), left in
 * an environment carried over an upgrade (docs/configuration.md): the start names it in a
 * warning, with what took its place, instead of ignoring it in silence. GRAPHQL_READ_PLANNER=false
 * switched reads to per-relation loaders; that path is gone, and the variable was read by nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(120_000);

describe('a removed setting', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-removed-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    for (const p of [dir, `${dir}.lock`, `${dir}.admin.sock`]) fs.rmSync(p, { recursive: true, force: true });
  });

  it('is named in a warning at start, and the server starts', async () => {
    server = await startServerProcess({ PGLITE_DATA_DIR: dir, GRAPHQL_READ_PLANNER: 'false' });
    const lines = server.output.flatMap((line) => {
      try {
        return [JSON.parse(line) as { level: number; setting?: string; msg: string }];
      } catch {
        return [];
      }
    });
    const warning = lines.find((l) => l.setting === 'GRAPHQL_READ_PLANNER');
    expect(warning).toMatchObject({ level: 40 });
    expect(warning!.msg).toMatch(/^GRAPHQL_READ_PLANNER is no longer read \(removed\): .*remove it/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
