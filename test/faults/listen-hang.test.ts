/**
 * The LISTEN connection stops answering without closing (a hung server, a dropped network path):
 * the process must notice within seconds, as it does a closed one, and close its subscribers' sockets
 * with 1013 so that they reconnect and refetch, instead of leaving them open while their events are
 * lost. The LISTEN connection (DATABASE_DIRECT_URL) goes through a proxy the test controls; the pool
 * does not, so the process keeps answering requests meanwhile. Needs a PostgreSQL server.
 */
import { createDatabase } from '../../src/db/database';
import { createServices } from '../../src/modules/services';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { gql, petInStock } from '../helpers/gateway-fixture';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';
import { createApiKey } from '../helpers/test-app';
import { connectWs, subscribe, until, type TestWsClient } from '../helpers/ws-client';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('a LISTEN connection that stops answering', () => {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: TcpProxy;
  let server: ServerProcess;
  let ws: TestWsClient | undefined;

  afterAll(async () => {
    await ws?.dispose();
    await server?.stop('SIGKILL');
    await proxy?.close();
    await pg?.drop();
  });

  it('is noticed within seconds: subscribers are closed with 1013', async () => {
    pg = await createPostgresDatabase();
    const target = new URL(pg.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    server = await startServerProcess({
      DATABASE_URL: pg.url,
      DATABASE_DIRECT_URL: proxy.via(pg.url),
      RATE_LIMIT_MAX: '10000000',
    });
    const db = await createDatabase({ kind: 'postgres', url: pg.url, poolSize: 1 });
    let admin: Record<string, string>;
    try {
      admin = await createApiKey({ services: createServices(db) }, ['admin'], 'listen hang');
    } finally {
      await db.close();
    }
    const petId = await petInStock(server.url, admin, 10);
    ws = connectWs(server.url);
    const stock = subscribe<{ stockChanged: { quantity: number } }>(
      ws,
      'subscription($p: ID!) { stockChanged(petIds: [$p]) { quantity } }',
      { p: petId },
    );
    await ws.connected;
    const setStock = (q: number) =>
      gql(
        server.url,
        'mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }',
        { p: petId, q },
        admin,
      );
    // Events flow while the connection answers. The notification of the stock set before subscribing
    // (10) may still be on its way when the subscription starts, so it may come first: wait for 11.
    await setStock(11);
    await until(() => stock.results.some((r) => r.data?.stockChanged.quantity === 11));

    proxy.blackhole();
    await setStock(12); // missed: the notification never arrives
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      ws.closed,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 30_000))),
    ]);
    clearTimeout(timer);
    expect(closed?.code).toBe(1013);
    // Requests never depended on it.
    expect((await setStock(13)).errors).toBeUndefined();
  });
});
