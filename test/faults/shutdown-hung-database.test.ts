/**
 * SIGTERM while the database has stopped answering without closing (a frozen server, a dropped
 * network path): no request is in flight, so the shutdown has nothing to wait for. It waited for an
 * UNLISTEN on the hung LISTEN connection until the heartbeat gave up on it (~10 s), past a
 * SHUTDOWN_TIMEOUT_MS of 5 s: exit 1, "killed by timeout". The pool and the LISTEN connection both go
 * through a proxy the test turns into a black hole (it never answers a FIN either). Needs PostgreSQL.
 */
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { gql } from '../helpers/gateway-fixture';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('SIGTERM while the database does not answer', () => {
  let pg: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: TcpProxy;
  let server: ServerProcess | undefined;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await proxy?.close();
    await pg?.drop();
  });

  it('exits 0 after its last answer, not 1 at SHUTDOWN_TIMEOUT_MS', async () => {
    pg = await createPostgresDatabase();
    const target = new URL(pg.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = proxy.via(pg.url);
    server = await startServerProcess({
      DATABASE_URL: url,
      DATABASE_DIRECT_URL: url,
      SHUTDOWN_TIMEOUT_MS: '5000',
      RATE_LIMIT_MAX: '10000000',
    });
    // The pool holds idle connections, and the LISTEN connection is open.
    for (let i = 0; i < 3; i++) expect((await gql(server.url, '{ pets(first: 1) { nodes { id } } }')).status).toBe(200);

    proxy.blackhole();
    expect(await server.stop('SIGTERM')).toBe(0);
    const lines = server.output.join('\n');
    expect(lines).not.toMatch(/killed by timeout/);
    expect(lines).toMatch(/"msg":"stopped"/);
    server = undefined;
  });
});
