import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { Config } from '../config';
import type { GraphQLContext } from './context';
import { errorReportingPlugin, formatError } from './errors';
import { JitGateway } from './jit-gateway';
import { createLimits } from './limits';
import { createSchema } from './schema';
import { explorerPlugin } from './explorer';
import { requestLogPlugin } from '../http/request-log';
import { traceResolvers } from '../telemetry/graphql-tracing';

/**
 * Apollo Server over the TypeGraphQL schema. Fastify owns shutdown: `app.close()` stops accepting,
 * lets in-flight requests finish, then stops Apollo (app.ts). Apollo's Fastify drain plugin is not
 * used because it closes Fastify from inside Apollo's stop, which deadlocks with that order.
 */
export async function createApollo(
  config: Config,
  { plugins = [], traceResolvers: traced = false }: { plugins?: ApolloServerPlugin<GraphQLContext>[]; traceResolvers?: boolean } = {},
): Promise<ApolloServer<GraphQLContext>> {
  const schema = await createSchema();
  // A span per resolver call (GRAPHQL_RESOLVER_SPANS with tracing on): before graphql-jit compiles.
  if (traced) traceResolvers(schema);
  // The explorer at GET /graphql: Apollo Sandbox with an offline fallback, GraphiQL, or none.
  const landingPage =
    config.graphql.explorer === 'off' ? ApolloServerPluginLandingPageDisabled() : explorerPlugin(config.graphql.explorer);
  const limits = createLimits(config.limits);
  const apollo = new ApolloServer<GraphQLContext>({
    // graphql-jit replaces graphql-js's execute through Apollo's gateway interface; everything before
    // and after execution (parsing, validation, limits, error formatting) stays Apollo's.
    ...(config.graphql.jit ? { gateway: new JitGateway(schema) } : { schema }),
    formatError,
    introspection: config.graphql.introspection,
    // Without introspection, "Did you mean ...?" hints would leak the schema piece by piece.
    hideSchemaDetailsFromClientErrors: !config.graphql.introspection,
    includeStacktraceInErrorResponses: false,
    // Apollo's default, stated because it matters: a POST must be application/json (or carry a
    // preflight-forcing header), so a browser form on another site cannot run a mutation.
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    parseOptions: limits.parseOptions,
    validationRules: limits.validationRules,
    // Apollo installs its cache-control plugin by default; it hooks every field resolution to compute
    // a cache policy, and this schema sets no cache hints, so it costs CPU for nothing (issue 6).
    plugins: [
      errorReportingPlugin(),
      limits.plugin,
      requestLogPlugin(),
      landingPage,
      ApolloServerPluginCacheControlDisabled(),
      ...plugins,
    ],
  });
  await apollo.start();
  return apollo;
}
