/**
 * The service as a test drives it: the real Fastify app (Apollo, routes, error handling) over a test
 * database, called through HTTP with Fastify's `inject`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { Clock } from '../../src/common/clock';
import { createServices, type Services } from '../../src/services';
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
  gql<TResult, TVariables>(
    document: TypedDocument<TResult, TVariables>,
    variables?: TVariables,
    headers?: Record<string, string>,
  ): Promise<GraphQLReply<TResult>>;
  /** Like `gql`, but fails the test when the answer has errors. */
  gqlOk<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, variables?: TVariables, headers?: Record<string, string>): Promise<TResult>;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
}

export async function createTestApp(
  options: {
    env?: Record<string, string>;
    logger?: boolean | Record<string, unknown>;
    database?: TestDatabase;
    /** A fixed "now" (e.g. to stand after a sunset date); the system clock otherwise. */
    clock?: Clock;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const appConfig = { ...testConfig(options.env), database: database.config };
  const app = await buildApp({ config: appConfig, db: database.db, logger: options.logger ?? false, clock: options.clock });
  await app.ready();
  const gql: TestApp['gql'] = async (document, variables, headers = {}) => {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload: { query: document.toString(), variables },
    });
    const body = res.json() as { data?: unknown; errors?: GraphQLErrorJson[] };
    return { status: res.statusCode, headers: res.headers, data: body.data as never, errors: body.errors };
  };
  return {
    ...database,
    app,
    appConfig,
    services: createServices(database.db.prisma),
    gql,
    async gqlOk(document, variables, headers) {
      const reply = await gql(document, variables, headers);
      if (reply.errors) throw new Error(`GraphQL errors: ${JSON.stringify(reply.errors)}`);
      return reply.data!;
    },
    async close() {
      await app.close();
      await database.destroy();
    },
  };
}
