/**
 * A gateway process on a database of its own (a new PGlite data directory, or a new PostgreSQL
 * database when TEST_DATABASE_URL is set), with an admin key: what the fault tests start from.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDatabase } from '../../src/db/database';
import { createServices } from '../../src/modules/services';
import { adminKeyFor, startServerProcess, type ServerProcess } from './server-process';
import { createApiKey } from './test-app';
import { createPostgresDatabase, usingPostgres } from './test-database';
import { postGraphql } from './http-graphql';

export interface GatewayFixture {
  server: ServerProcess;
  /** Authorization header of an admin key. */
  admin: Record<string, string>;
  /** The environment the server was started with (its database), to start another on it. */
  env: Record<string, string>;
  /** PostgreSQL only: the database's URL. */
  databaseUrl?: string;
  /** Stops the server (if still running) and removes the database. */
  dispose(): Promise<void>;
}

export async function startGateway(
  env: Record<string, string> = {},
  options: { databaseUrl?: (url: string) => Promise<string> | string } = {},
): Promise<GatewayFixture> {
  // Fault tests send hundreds of requests from one key: the rate limit is not what they test.
  env = { RATE_LIMIT_MAX: '10000000', ...env };
  if (usingPostgres()) {
    const pg = await createPostgresDatabase();
    const dbEnv = options.databaseUrl ? { DATABASE_URL: await options.databaseUrl(pg.url) } : pg.env;
    const server = await startServerProcess({ ...dbEnv, ...env });
    let admin: Record<string, string>;
    try {
      const db = await createDatabase({ kind: 'postgres', url: pg.url, poolSize: 1 });
      try {
        admin = await createApiKey({ services: createServices(db) }, ['admin'], 'fault tests');
      } finally {
        await db.close();
      }
    } catch (error) {
      await server.stop('SIGKILL');
      await pg.drop();
      throw error;
    }
    return {
      server,
      admin,
      env: dbEnv,
      databaseUrl: pg.url,
      async dispose() {
        await server.stop('SIGKILL');
        await pg.drop();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'petstore-fault-'));
  const dbEnv = { PGLITE_DATA_DIR: dir };
  const admin = await adminKeyFor(dbEnv);
  const server = await startServerProcess({ ...dbEnv, ...env });
  return {
    server,
    admin,
    env: dbEnv,
    async dispose() {
      await server.stop('SIGKILL');
      // Killed, the server leaves its lock and admin socket beside the data directory.
      for (const p of [dir, `${dir}.lock`, `${dir}.admin.sock`]) fs.rmSync(p, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  data?: Record<string, any> | null;
  errors?: { message: string; extensions: { code: string; status: number } }[];
}

export async function gql(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  const { status, body } = await postGraphql(url, query, variables, headers);
  return { status, ...(body as Omit<Reply, 'status'>) };
}

/** `gql` for a test's own steps, which must succeed: its data, or a throw naming the errors. */
export async function gqlOk(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Record<string, any>> {
  const reply = await gql(url, query, variables, headers);
  if (reply.errors) throw new Error(JSON.stringify(reply.errors));
  return reply.data!;
}

/** Creates a category (of a name of its own: names are unique) and a pet with `stock` units; returns the pet's id. */
export async function petInStock(url: string, admin: Record<string, string>, stock: number): Promise<string> {
  const ok = (query: string, variables: Record<string, unknown> = {}) => gqlOk(url, query, variables, admin);
  const { createCategory } = await ok('mutation($n: String!) { createCategory(input: { name: $n }) { id } }', {
    n: `Faults ${crypto.randomUUID().slice(0, 8)}`,
  });
  const { createPet } = await ok('mutation($c: ID!) { createPet(input: { name: "Rex", categoryId: $c }) { id } }', {
    c: createCategory.id,
  });
  await ok('mutation($p: ID!, $q: Int!) { updateInventory(petId: $p, input: { quantity: $q }) { quantity } }', {
    p: createPet.id,
    q: stock,
  });
  return createPet.id as string;
}

export const PLACE_ORDER = 'mutation($p: ID!) { placeOrder(input: { petId: $p, quantity: 1 }) { id } }';

/** Two gateway processes on one new PostgreSQL database (TEST_DATABASE_URL), with an admin key. */
export interface ProcessPair {
  servers: [ServerProcess, ServerProcess];
  /** The database both use, to reach it directly. */
  databaseUrl: string;
  /** Authorization header of an admin key. */
  admin: Record<string, string>;
  /** Stops both servers and drops the database. */
  dispose(): Promise<void>;
}

export async function startProcessPair(env: Record<string, string> = {}): Promise<ProcessPair> {
  const database = await createPostgresDatabase();
  // Started together: both migrate the new database at once (the advisory lock serialises them).
  const servers = (await Promise.all([
    startServerProcess({ ...database.env, LOG_LEVEL: 'warn', ...env }),
    startServerProcess({ ...database.env, LOG_LEVEL: 'warn', ...env }),
  ])) as [ServerProcess, ServerProcess];
  // Created once both servers have migrated the database.
  const db = await createDatabase({ kind: 'postgres', url: database.url, poolSize: 1 });
  try {
    const admin = await createApiKey({ services: createServices(db) }, ['admin'], 'two processes');
    return {
      servers,
      databaseUrl: database.url,
      admin,
      async dispose() {
        await Promise.all(servers.map((s) => s.stop()));
        await database.drop();
      },
    };
  } finally {
    await db.close();
  }
}
