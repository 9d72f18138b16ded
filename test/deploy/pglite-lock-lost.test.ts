/**
 * In production every line the gateway writes is JSON (docs/deployment.md). The embedded database's
 * lock (`<dataDir>.lock`) lost while the server runs (removed by hand, as a reset done without
 * stopping the server would) was said with console.error, one plain-text line on stderr: it is now a
 * log line like the others.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { until } from '../helpers/ws-client';

jest.setTimeout(60_000);

describe('the embedded database lock lost while the server runs', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-lost-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('is said in a JSON log line', async () => {
    const dataDir = path.join(tmp, 'data');
    server = await startServerProcess({ NODE_ENV: 'production', PGLITE_DATA_DIR: dataDir });
    fs.rmSync(`${dataDir}.lock`, { recursive: true, force: true });
    // The lock is refreshed every 5 s: the next refresh finds it gone.
    const deadline = Date.now() + 15_000;
    await until(() => server!.output.some((l) => l.includes('lock on')) || Date.now() > deadline, 100);
    const lines = server.output.filter((l) => l.includes('lock on')).map((l) => JSON.parse(l) as object);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, msg: expect.stringMatching(/^lock on .*data lost: ENOENT/) }),
    ]);
  });
});
