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
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { startGateway, type GatewayFixture } from '../helpers/gateway-fixture';
import { usingPostgres } from '../helpers/test-database';
import { until } from '../helpers/ws-client';

jest.setTimeout(120_000);

/** The JSON log lines a server process printed. */
const logLines = (server: ServerProcess) =>
  server.output.flatMap((line) => {
    try {
      return [JSON.parse(line) as { level: number; setting?: string; msg: string }];
    } catch {
      return [];
    }
  });

describe('a removed setting', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-removed-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    for (const p of [dir, `${dir}.lock`, `${dir}.admin.sock`]) fs.rmSync(p, { recursive: true, force: true });
  });

  it('is named in a warning at start, and the server starts', async () => {
    server = await startServerProcess({ PGLITE_DATA_DIR: dir, GRAPHQL_READ_PLANNER: 'false' });
    const warning = logLines(server).find((l) => l.setting === 'GRAPHQL_READ_PLANNER');
    expect(warning).toMatchObject({ level: 40 });
    expect(warning!.msg).toMatch(/^GRAPHQL_READ_PLANNER is no longer read \(removed\): .*remove it/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describeIf(usingPostgres(), NEEDS_POSTGRES)('a removed setting under WEB_CONCURRENCY workers', () => {
  let fixture: GatewayFixture | undefined;
  afterAll(async () => {
    await fixture?.dispose();
  });

  it('is named once, by the primary, not again by each worker', async () => {
    fixture = await startGateway({ WEB_CONCURRENCY: '2', GRAPHQL_READ_PLANNER: 'false' });
    const server = fixture.server;
    // The primary says ready once every worker listens: each has passed its own start-up checks.
    await until(() => logLines(server).some((l) => l.msg === 'petstore gateway ready'), 50);
    const warnings = logLines(server).filter((l) => l.setting === 'GRAPHQL_READ_PLANNER');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40 });
  });
});
