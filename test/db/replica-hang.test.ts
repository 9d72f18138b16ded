/**
 * A replica that stops answering (a hung host, a dropped network; the same as a replica behind
 * PgBouncer that crashed, whose pooler holds the query while it retries the login): the check takes
 * it out within DB_REPLICA_CHECK_MS (a check waits at most a second), and a read already waiting on it
 * is answered from the primary then, not after the statement timeout. Skipped without PostgreSQL's
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
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(180_000);

describeIf(replicationAvailable, NEEDS_PG_BINARIES)('a replica that stops answering', () => {
  let pair: ReplicatedPair;
  let proxy: TcpProxy;
  let server: ServerProcess;

  beforeAll(async () => {
    pair = await startReplicatedPair();
    await pair.primary.query('CREATE DATABASE petstore');
    proxy = await startTcpProxy('127.0.0.1', pair.replica.port);
    server = await startServerProcess({
      DATABASE_URL: pair.primary.url('petstore'),
      DATABASE_REPLICA_URLS: proxy.via(pair.replica.url('petstore')),
      DB_REPLICA_CHECK_MS: '300',
      DB_STATEMENT_TIMEOUT_MS: '12000',
      RATE_LIMIT_MAX: '10000000',
    });
    // The replica has the migrated tables: reads are answered there.
    await pollUntil(
      async () => (await pair.replica.query('SELECT count(*) FROM pets', [], 'petstore').catch(() => [])).length,
      (n) => n === 1,
      30_000,
    );
    expect((await gql(server.url, '{ pets(first: 1) { totalCount } }')).errors).toBeUndefined();
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await proxy?.close();
    await pair?.stop();
  });

  it('answers a read waiting on it from the primary once the check takes it out', async () => {
    proxy.blackhole();
    const started = Date.now();
    const reply = await gql(server.url, '{ pets(first: 1) { totalCount } }');
    const took = Date.now() - started;
    expect(reply.errors).toBeUndefined();
    expect(reply.data).toEqual({ pets: { totalCount: 0 } });
    // The check gives up after 1 s; the statement timeout (12 s, +1 s on the client) is far off.
    expect(took).toBeLessThan(5_000);
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { status: string };
    expect(ready.status).toBe('degraded');
  });
});
