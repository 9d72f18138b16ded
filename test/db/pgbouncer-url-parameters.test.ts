/**
 * A DATABASE_DIRECT_URL that is the pooler itself is named as such, with its fix. A DATABASE_URL with ?pgbouncer=true and a startup parameter of its own (`options`) that PgBouncer
 * refuses: the gateway sends none of its own behind a pooler, so the start's one line names the URL's
 * parameter and its fix, not "add ?pgbouncer=true", which the URL already has. Skipped without
 * PgBouncer and a PostgreSQL server (TEST_DATABASE_URL).
 */
import { describeIf } from '../helpers/describe-if';
import { NEEDS_PGBOUNCER, pgbouncerAvailable, startPgBouncer, type PgBouncer } from '../helpers/pg-servers';
import { runScript } from '../helpers/server-process';
import { createPostgresDatabase, usingPostgres } from '../helpers/test-database';

jest.setTimeout(120_000);

describeIf(usingPostgres() && pgbouncerAvailable, NEEDS_PGBOUNCER)(
  'a pooled DATABASE_URL with its own parameters',
  () => {
    let bouncer: PgBouncer;
    let database: Awaited<ReturnType<typeof createPostgresDatabase>>;

    beforeAll(async () => {
      bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL!);
      database = await createPostgresDatabase();
    });

    afterAll(async () => {
      await database?.drop();
      await bouncer?.stop();
    });

    it('names the URL parameter PgBouncer refused and how to fix it, in one line', async () => {
      const url = new URL(bouncer.url(new URL(database.url).pathname.slice(1)));
      url.searchParams.set('options', '-c work_mem=8MB');
      const { code, stderr } = await runScript('src/main.js', [], {
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: url.toString(),
        DATABASE_DIRECT_URL: database.url,
      });
      const lines = stderr.trim().split('\n');
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /refused the startup parameter options, which DATABASE_URL itself carries: .*Remove options from DATABASE_URL/,
      );
      expect(lines[0]).not.toMatch(/Add \?pgbouncer=true/);
    });

    it('names DATABASE_DIRECT_URL when it is the pooler, and says it must reach the primary itself', async () => {
      const name = new URL(database.url).pathname.slice(1);
      const { code, stderr } = await runScript('src/main.js', [], {
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: bouncer.url(name),
        DATABASE_DIRECT_URL: bouncer.url(name, false),
      });
      const lines = stderr.trim().split('\n');
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^The server of DATABASE_DIRECT_URL \(.*\) refused the startup parameter statement_timeout: .*Point it at the PostgreSQL server/,
      );
    });
  },
);
