/**
 * docs/postgres-topologies.md's PgBouncer configuration, as pasted, in front of a private primary that
 * restarts (an upgrade, a crash, a failover): the gateway answers again within seconds of the
 * primary, as docs/operations.md says, not after PgBouncer's own back-off. PgBouncer's
 * server_login_retry (15 s by default) refuses every client for that long once a login to the server
 * has failed, which it does while the server is down and clients keep asking.
 * Real processes throughout. Skipped where PgBouncer or PostgreSQL's server binaries are missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeIf } from '../helpers/describe-if';
import { gql } from '../helpers/gateway-fixture';
import {
  NEEDS_PG_BINARIES,
  pgbouncerAvailable,
  replicationAvailable,
  startPgBouncer,
  startReplicatedPair,
  type PgBouncer,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(120_000);

/** The `[pgbouncer]` lines of the documented pgbouncer.ini, but where it listens and its auth_file. */
function documentedSettings(): string[] {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'postgres-topologies.md'), 'utf8');
  const ini = /```ini\n([\s\S]*?)```/.exec(doc)![1]!;
  return ini
    .split('[pgbouncer]')[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith(';') && !/^(listen_addr|listen_port|auth_file)\b/.test(line));
}

const QUERY = '{ pets(first: 1) { totalCount } }';

describeIf(pgbouncerAvailable && replicationAvailable, NEEDS_PG_BINARIES)(
  "the documented PgBouncer configuration across a primary's restart",
  () => {
    let pair: ReplicatedPair;
    let bouncer: PgBouncer;
    let server: ServerProcess;

    beforeAll(async () => {
      pair = await startReplicatedPair();
      await pair.primary.query('CREATE DATABASE petstore');
      bouncer = await startPgBouncer(pair.primary.url(), { settings: documentedSettings() });
      server = await startServerProcess({
        DATABASE_URL: bouncer.url('petstore'),
        DATABASE_DIRECT_URL: pair.primary.url('petstore'),
        RATE_LIMIT_MAX: '10000000',
      });
    });

    afterAll(async () => {
      await server?.stop('SIGKILL');
      await bouncer?.stop();
      await pair?.stop();
    });

    it('answers again within seconds of the primary coming back, not after PgBouncer backs off', async () => {
      expect((await gql(server.url, QUERY)).status).toBe(200);
      pair.primary.stop('fast');
      // Clients keep asking while it is down: 503 UNAVAILABLE, and PgBouncer's logins to it fail.
      for (let i = 0; i < 5; i++) {
        const down = await gql(server.url, QUERY);
        expect(down.status).toBe(503);
        expect(down.errors?.[0]?.extensions).toEqual({ code: 'UNAVAILABLE', status: 503 });
        await new Promise((r) => setTimeout(r, 200));
      }
      await pair.primary.start();
      const back = Date.now();
      let status = 0;
      while (Date.now() - back < 20_000 && (status = (await gql(server.url, QUERY)).status) !== 200) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const tookMs = Date.now() - back;
      console.info(`answered again ${tookMs} ms after the primary was back`);
      expect(status).toBe(200);
      expect(tookMs).toBeLessThan(4_000);
    });
  },
);
