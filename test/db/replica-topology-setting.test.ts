/**
 * A DATABASE_REPLICA_URLS entry that is a primary stops the start with one line naming the variable:
 * in JSON (production's format, read by log pipelines) its `setting` field names that variable too,
 * not DATABASE_URL. Skipped without PostgreSQL's server binaries.
 */
import { describeIf } from '../helpers/describe-if';
import {
  NEEDS_PG_BINARIES,
  replicationAvailable,
  startReplicatedPair,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { runScript } from '../helpers/server-process';

jest.setTimeout(120_000);

describeIf(replicationAvailable, NEEDS_PG_BINARIES)('a replica URL that names a primary', () => {
  let pair: ReplicatedPair;

  beforeAll(async () => {
    pair = await startReplicatedPair();
    await pair.primary.query('CREATE DATABASE petstore');
  });

  afterAll(async () => {
    await pair?.stop();
  });

  it("names DATABASE_REPLICA_URLS in the fatal line's setting field", async () => {
    const { code, stderr } = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_FORMAT: 'json',
      DATABASE_URL: pair.primary.url('petstore'),
      DATABASE_REPLICA_URLS: pair.primary.url('petstore'),
    });
    const lines = stderr.trim().split('\n');
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { setting?: string; msg: string };
    expect(line.msg).toMatch(/^replica-1 of DATABASE_REPLICA_URLS \(.*\) is not a standby/);
    expect(line.setting).toBe('DATABASE_REPLICA_URLS');
  });
});
