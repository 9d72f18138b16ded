/**
 * A replica that has not replayed the latest migrations yet (its WAL replay paused here; in production
 * a moment of lag after `npm run db:migrate`, a rollout right behind it) has no such table or column:
 * reads sent there are answered from the primary, never an INTERNAL error the primary could have
 * avoided, and the replica stays in (it is healthy, only behind). Skipped without PostgreSQL's
 * server binaries.
 */
import { gql } from '../helpers/gateway-fixture';
import {
  NEEDS_PG_BINARIES,
  replicationAvailable,
  startReplicatedPair,
  type ReplicatedPair,
} from '../helpers/pg-servers';
import { describeIf } from '../helpers/describe-if';
import { pollUntil } from '../helpers/poll';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';

jest.setTimeout(180_000);

describeIf(replicationAvailable, NEEDS_PG_BINARIES)('a replica behind the schema', () => {
  let pair: ReplicatedPair;
  let server: ServerProcess;

  beforeAll(async () => {
    pair = await startReplicatedPair();
    await pair.primary.query('CREATE DATABASE petstore');
    await pollUntil(
      async () => (await pair.replica.query('SELECT 1', [], 'petstore').catch(() => [])).length,
      (n) => n === 1,
      30_000,
    );
    // The replica stops replaying: the gateway's migrations reach the primary only.
    await pair.replica.query('SELECT pg_wal_replay_pause()');
    server = await startServerProcess({
      DATABASE_URL: pair.primary.url('petstore'),
      DATABASE_REPLICA_URLS: pair.replica.url('petstore'),
      RATE_LIMIT_MAX: '10000000',
    });
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await pair?.stop();
  });

  it('answers reads from the primary while the replica lacks the tables, and keeps the replica in', async () => {
    const reply = await gql(server.url, '{ pets(first: 1) { totalCount } categories { totalCount } }');
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ pets: { totalCount: 0 }, categories: { totalCount: 0 } });
    const rest = await fetch(`${server.url}/pets/1`);
    expect(rest.status).toBe(404);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { status: string };
    expect(ready.status).toBe('ok');
  });
});
