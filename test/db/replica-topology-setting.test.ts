/**
 * A DATABASE_REPLICA_URLS entry that is a primary, or a PgBouncer in front of a replica that refuses
 * the sessions' startup parameters (the URL lacks `?pgbouncer=true`), stops the start with one line
 * naming the variable: in JSON (production's format, read by log pipelines) its `setting` field names
 * that variable too, not DATABASE_URL. Skipped without PostgreSQL's server binaries (or PgBouncer).
 */
import { describeIf } from '../helpers/describe-if';
import {
  NEEDS_PG_BINARIES,
  NEEDS_PGBOUNCER,
  pgbouncerAvailable,
  replicationAvailable,
  startPgBouncer,
  startReplicatedPair,
  type PgBouncer,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { pollUntil } from '../helpers/poll';
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

describeIf(replicationAvailable && pgbouncerAvailable, NEEDS_PGBOUNCER)(
  'a replica URL through PgBouncer without ?pgbouncer=true',
  () => {
    let pair: ReplicatedPair;
    let bouncer: PgBouncer;

    beforeAll(async () => {
      pair = await startReplicatedPair();
      await pair.primary.query('CREATE DATABASE petstore');
      await pollUntil(
        async () => (await pair.replica.query('SELECT 1 AS one', [], 'petstore').catch(() => [])).length,
        (rows) => rows === 1,
        30_000,
      );
      bouncer = await startPgBouncer(pair.replica.url());
    });

    afterAll(async () => {
      await bouncer?.stop();
      await pair?.stop();
    });

    // As DATABASE_URL does: else the replica is out for good (every check refused alike), with all
    // reads on the primary and nothing but a degraded /readyz to say why.
    it('stops the start in one line naming DATABASE_REPLICA_URLS, the parameter and the fix', async () => {
      const { code, stderr } = await runScript('src/main.js', [], {
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_FORMAT: 'json',
        DATABASE_URL: pair.primary.url('petstore'),
        DATABASE_REPLICA_URLS: bouncer.url('petstore', false),
      });
      const lines = stderr.trim().split('\n');
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { setting?: string; msg: string };
      expect(line.msg).toMatch(
        /^replica-1 of DATABASE_REPLICA_URLS \(.*\) refused the startup parameter statement_timeout: .*Add \?pgbouncer=true to that URL/,
      );
      expect(line.setting).toBe('DATABASE_REPLICA_URLS');
    });
  },
);
