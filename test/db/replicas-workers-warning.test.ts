/**
 * WEB_CONCURRENCY above 1 with read replicas and no REDIS_URL: a caller's read-your-writes window
 * holds only in the worker that took its write, and the workers share one port (no sticky sessions
 * possible), so its next read may come from a replica without its write. The start says so, as it
 * says what happens to the rate limit. Needs a PostgreSQL server (TEST_DATABASE_URL); the replica URL
 * answers nothing (it is taken out at start: the warning is the primary process's, before any worker).
 */
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('workers with replicas and no REDIS_URL', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    database = await createPostgresDatabase();
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await database?.drop();
  });

  it("warns at start that a caller's read-your-writes window does not reach the other workers", async () => {
    server = await startServerProcess({
      WEB_CONCURRENCY: '2',
      DATABASE_URL: database.url,
      DATABASE_REPLICA_URLS: 'postgresql://postgres@127.0.0.1:1/petstore',
    });
    const warning = server.output.find((line) => line.includes('read-your-writes'));
    expect(warning).toMatch(
      /REDIS_URL is unset: a caller's read-your-writes window .*set REDIS_URL to share the window/,
    );
  });
});
