/**
 * The service as a test drives it: the real Fastify app (Apollo, routes, error handling) over a test
 * database, called through HTTP with Fastify's `inject`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildAppOptions } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { Clock } from '../../src/common/clock';
import { createServices, type Services } from '../../src/modules/services';
import type { Scope } from '../../src/common/scopes';
import { createTestDatabase, type TestDatabase } from './test-database';

/** A document from `graphql()` in test/gql (typed by GraphQL Code Generator). */
export interface TypedDocument<TResult, TVariables> {
  toString(): string;
  __apiType?: (variables: TVariables) => TResult;
}

export interface GraphQLErrorJson {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; status: number; requestId?: string };
}

export interface GraphQLReply<TResult> {
  status: number;
  headers: LightMyRequestResponse['headers'];
  data: TResult | null | undefined;
  errors: GraphQLErrorJson[] | undefined;
}

export interface TestApp extends TestDatabase {
  app: FastifyInstance;
  services: Services;
  appConfig: Config;
  /** `{ authorization: 'Bearer <key>' }` for a key with scope `admin` (created with the app). */
  admin: Record<string, string>;
  gql<TResult, TVariables>(
    document: TypedDocument<TResult, TVariables>,
    variables?: TVariables,
    headers?: Record<string, string>,
  ): Promise<GraphQLReply<TResult>>;
  /** Like `gql`, but fails the test when the answer has errors. */
  gqlOk<TResult, TVariables>(
    document: TypedDocument<TResult, TVariables>,
    variables?: TVariables,
    headers?: Record<string, string>,
  ): Promise<TResult>;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
}

/**
 * Creates an API key through the service (the CLI's path) and returns its Authorization header.
 * Suites that call protected operations pass it as `headers`, or build the app with `auth: 'admin'`.
 */
export async function createApiKey(
  t: Pick<TestApp, 'services'>,
  scopes: Scope[],
  name = `test ${scopes.join(' ') || 'none'}`,
): Promise<Record<string, string>> {
  const { key } = await t.services.apiKeys.create({ name, scopes });
  return { authorization: `Bearer ${key}` };
}

export interface TestAppOptions {
  env?: Record<string, string>;
  logger?: false | Record<string, unknown>;
  /**
   * A database to serve (several apps of a suite can share one: a database costs a PGlite start, an
   * app a fraction of it). `close()` leaves it open: whoever created it destroys it.
   */
  database?: TestDatabase;
  /** Who `gql` calls as when no headers are given: anonymous (the default) or the admin key. */
  auth?: 'anonymous' | 'admin';
  /** Registers extra routes (test-only) before the app is ready. */
  routes?: (app: FastifyInstance) => void;
  /** A fixed "now" (e.g. to stand after a sunset date); the system clock otherwise. */
  clock?: Clock;
  /** Replaces the schema the app serves (buildApp's `transformSchema`): the reference reader. */
  transformSchema?: BuildAppOptions['transformSchema'];
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  // Tests send thousands of requests from one address: the rate limit is tested on its own.
  const appConfig = { ...testConfig({ RATE_LIMIT_MAX: '1000000', ...options.env }), database: database.config };
  const app = await buildApp({
    config: appConfig,
    db: database.db,
    logger: options.logger ?? false,
    clock: options.clock,
    transformSchema: options.transformSchema,
  });
  options.routes?.(app);
  await app.ready();
  const services = createServices(database.db);
  const admin = await createApiKey({ services }, ['admin'], 'test admin');
  const defaultHeaders = options.auth === 'admin' ? admin : {};
  const gql: TestApp['gql'] = async (document, variables, headers = {}) => {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      // Explicit headers add to (and may override) the suite's default credential.
      headers: { 'content-type': 'application/json', ...defaultHeaders, ...headers },
      payload: { query: document.toString(), variables },
    });
    const body = res.json() as { data?: unknown; errors?: GraphQLErrorJson[] };
    return { status: res.statusCode, headers: res.headers, data: body.data as never, errors: body.errors };
  };
  return {
    ...database,
    app,
    appConfig,
    services,
    admin,
    gql,
    async gqlOk(document, variables, headers) {
      const reply = await gql(document, variables, headers);
      if (reply.errors) throw new Error(`GraphQL errors: ${JSON.stringify(reply.errors)}`);
      return reply.data!;
    },
    async close() {
      await app.close();
      if (!options.database) await database.destroy();
    },
  };
}
