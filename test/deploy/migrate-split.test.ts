/**
 * Issue 30, item 3: migrations as their own step. With MIGRATE_ON_START=false the gateway never
 * changes the schema: on a database the migrate command has not brought up to date it refuses in one
 * line naming the command (and creates nothing), and after the migrate command (run by the owner) it
 * starts and serves as a role that may read and write rows but has no CREATE anywhere. PostgreSQL
 * only: the database and the role are created here, on TEST_DATABASE_URL's server, and dropped after.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from '../../src/db/database';
import { createServices } from '../../src/modules/services';
import { describeIf, NEEDS_POSTGRES } from '../helpers/describe-if';
import { gql } from '../helpers/gateway-fixture';
import { runScript, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { createApiKey } from '../helpers/test-app';
import { usingPostgres } from '../helpers/test-database';

jest.setTimeout(180_000);

describeIf(usingPostgres(), NEEDS_POSTGRES)('MIGRATE_ON_START=false and a role without CREATE', () => {
  const suffix = `${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
  const dbName = `petstore_migrate_split_${suffix}`;
  const role = `petstore_app_${suffix}`;
  // (Read when the suite is skipped too: Jest collects a skipped describe's body.)
  const base = new URL(process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/unused');
  const ownerUrl = Object.assign(new URL(base), { pathname: `/${dbName}` }).toString();
  const appUrl = (() => {
    const u = new URL(ownerUrl);
    u.username = role;
    u.password = 'app-secret';
    return u.toString();
  })();
  let server: ServerProcess | undefined;

  const sql = async (url: string, text: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    await sql(base.toString(), `CREATE DATABASE "${dbName}"`);
    // The role exactly as the stack's PostgreSQL creates it (deploy/postgres/roles.sh, compose.yaml):
    // rows, never the schema. Its SQL, with this test's names.
    const script = fs.readFileSync(path.resolve(__dirname, '..', '..', 'deploy', 'postgres', 'roles.sh'), 'utf8');
    const roleSql = /<<SQL\n([\s\S]*?)\nSQL/
      .exec(script)![1]!
      .replaceAll('${PETSTORE_APP_PASSWORD}', 'app-secret')
      .replaceAll('${POSTGRES_DB}', dbName)
      .replaceAll('petstore_app', role);
    await sql(ownerUrl, roleSql);
  });

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await sql(base.toString(), `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await sql(base.toString(), `DROP ROLE IF EXISTS "${role}"`);
  });

  it('refuses to start on a schema that is behind, in one line naming the command, changing nothing', async () => {
    const result = await runScript('src/main.js', [], {
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: appUrl,
      MIGRATE_ON_START: 'false',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([expect.stringMatching(/^The database schema is behind: \d+ migration\(s\) not applied/)]);
    expect(lines[0]).toContain('npm run db:migrate');
    expect(await sql(ownerUrl, `SELECT to_regclass('"_prisma_migrations"') AS t`)).toEqual([{ t: null }]);
  });

  it('the role cannot migrate (no CREATE): the migrate command says so, the owner runs it', async () => {
    const refused = await runScript('src/db/migrate.cli.js', [], { DATABASE_URL: appUrl });
    expect(refused.code).toBe(1);
    // One line: the role may not change the schema, and which setting names the one that may (the
    // connection succeeded; "refused the connection... fix the user, password" pointed the wrong way).
    expect(refused.stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(
        /^The role of DATABASE_URL may not change the schema \(.*permission denied.*\): the migrate command needs a role that may/,
      ),
    ]);
    const applied = await runScript('src/db/migrate.cli.js', [], { DATABASE_URL: ownerUrl });
    expect(applied).toMatchObject({ code: 0, stdout: expect.stringMatching(/^applied \d+ migration\(s\)/) });
    expect(refused.stderr).not.toMatch(/MIGRATE_ON_START/);
  });

  it('starts as the role once migrated, and serves reads, writes and keys', async () => {
    const db = await createDatabase({ kind: 'postgres', url: ownerUrl, poolSize: 1 });
    let admin: Record<string, string>;
    try {
      admin = await createApiKey({ services: createServices(db) }, ['admin'], 'migrate split');
    } finally {
      await db.close();
    }
    server = await startServerProcess({ DATABASE_URL: appUrl, MIGRATE_ON_START: 'false' });
    const created = await gql(
      server.url,
      'mutation { createCategory(input: { name: "Least privilege" }) { id name } }',
      {},
      admin,
    );
    expect(created).toMatchObject({ status: 200, data: { createCategory: { name: 'Least privilege' } } });
    const read = await gql(server.url, '{ categories(first: 5) { nodes { name } } }');
    expect(read.data).toEqual({ categories: { nodes: [{ name: 'Least privilege' }] } });
    expect(await server.stop()).toBe(0);
  });

  it('with MIGRATE_ON_START left at its default the same role cannot start (what the setting is for)', async () => {
    const result = await runScript('src/main.js', [], { HOST: '127.0.0.1', PORT: '0', DATABASE_URL: appUrl });
    expect(result.code).toBe(1);
    // One line naming the setting to change (PostgreSQL's own words pointed at the grants).
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toEqual([
      expect.stringMatching(
        /^The role of DATABASE_URL may not change the schema \(.*permission denied.*Set MIGRATE_ON_START=false/,
      ),
    ]);
  });
});
