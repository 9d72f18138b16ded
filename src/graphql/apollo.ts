import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../config';
import type { GraphQLContext } from '../modules/context';
import { errorReportingStep, formatErrorFor } from '../policy/errors';
import { JitGateway } from './jit-gateway';
import { createLimits, type GraphQLLimits } from '../policy/limits';
import { operationAccessStep } from '../policy/operation-access';
import { wellFormedVariablesStep } from '../policy/well-formed';
import { createSchema } from '../schema/schema';
import { subscriptionsOverHttpStep } from '../subscriptions/subscriptions';
import { explorerPlugin } from './explorer';
import { requestLogStep } from '../http/request-log';
import { traceResolvers } from './graphql-tracing';
import type { TrustedDocuments } from '../policy/trusted-documents';
import { requestStepsPlugin, type RequestStep } from '../common/graphql/request-steps';
import { emptyOperationNameStep } from '../common/graphql/get-parameters';
import { createDocumentStore } from '../common/graphql/document-store';
import type { PersistedQueries } from '../common/graphql/persisted-queries';

/**
 * Apollo's automatic persisted queries: off in enforce mode (trusted-documents.ts), otherwise kept in
 * `persistedQueries` when given (the cost budget reads it: common/graphql/persisted-queries.ts).
 */
function persistedQueriesOption(
  trustedDocuments: TrustedDocuments | null,
  persistedQueries: PersistedQueries | null,
): { persistedQueries?: false | { cache: PersistedQueries['cache'] } } {
  if (trustedDocuments?.mode === 'enforce') return { persistedQueries: false };
  return persistedQueries ? { persistedQueries: { cache: persistedQueries.cache } } : {};
}

/**
 * Apollo Server over the TypeGraphQL schema. Fastify owns shutdown: `app.close()` stops accepting,
 * lets in-flight requests finish, then stops Apollo (graphql.plugin.ts). Apollo's Fastify drain plugin is not
 * used because it closes Fastify from inside Apollo's stop, which deadlocks with that order.
 */
export async function createApollo(
  config: Pick<Config, 'graphql' | 'limits'>,
  {
    schema,
    trustedDocuments = null,
    limits = createLimits(config.limits, {
      exempt: trustedDocuments ? (document) => trustedDocuments.isTrusted(document) : undefined,
    }),
    plugins = [],
    steps = [],
    traceResolvers: traced = false,
    persistedQueries = null,
  }: {
    schema?: GraphQLSchema;
    /** The limits (and their cost cache), shared with the cost budget when there is one. */
    limits?: GraphQLLimits;
    plugins?: ApolloServerPlugin<GraphQLContext>[];
    /** Request steps run after the policy's own, in the one plugin of request steps. */
    steps?: RequestStep<GraphQLContext>[];
    traceResolvers?: boolean;
    /** TRUSTED_DOCUMENTS allow or enforce (src/policy/trusted-documents.ts); null when off. */
    trustedDocuments?: TrustedDocuments | null;
    /** Where automatic persisted queries are kept, shared with the cost budget; null: Apollo's own cache. */
    persistedQueries?: PersistedQueries | null;
  } = {},
): Promise<ApolloServer<GraphQLContext>> {
  schema ??= await createSchema();
  // A span per resolver call (GRAPHQL_RESOLVER_SPANS with tracing on): before graphql-jit compiles.
  if (traced) traceResolvers(schema);
  // The explorer at GET /graphql: Apollo Sandbox with an offline fallback, GraphiQL, or none.
  const landingPage =
    config.graphql.explorer === 'off'
      ? ApolloServerPluginLandingPageDisabled()
      : explorerPlugin(config.graphql.explorer);
  const documents = createDocumentStore();
  const apollo = new ApolloServer<GraphQLContext>({
    // graphql-jit replaces graphql-js's execute through Apollo's gateway interface; everything before
    // and after execution (parsing, validation, limits, error formatting) stays Apollo's.
    ...(config.graphql.jit ? { gateway: new JitGateway(schema) } : { schema }),
    // Without introspection, no "Did you mean ...?" in any error: validation's, variables' and
    // arguments' (the one place that removes them, for WebSocket too; Apollo's
    // hideSchemaDetailsFromClientErrors covers validation errors only, so it is not set).
    formatError: formatErrorFor({ hideSuggestions: !config.graphql.introspection }),
    // Fastify owns shutdown (main.ts). Apollo's default (on outside NODE_ENV=test) stops itself on
    // SIGINT/SIGTERM and re-sends the signal, which close-with-grace takes for a second one: exit 1
    // with the in-flight requests dropped.
    stopOnTerminationSignals: false,
    introspection: config.graphql.introspection,
    includeStacktraceInErrorResponses: false,
    // Off: Apollo's check refuses a GET without a preflight-forcing header, which is what urql,
    // graphql-request (method GET) and Apollo Client's useGETForQueries send. Cross-site request
    // forgery needs an ambient credential (a cookie); this service accepts Bearer keys only, and a
    // browser sends an Authorization header cross-site only after a CORS preflight. What stays
    // refused: a mutation over GET (405, Apollo), and a POST whose body is not JSON (415: Fastify has
    // no parser for text/plain, form or multipart bodies, see http/http-basics.plugin.ts). docs/clients.md, CSRF.
    csrfPrevention: false,
    // Batches (a JSON array of operations) are accepted up to GRAPHQL_BATCH_MAX operations; each is
    // counted by the rate limit and checked by every limit on its own (src/policy/batching.ts).
    allowBatchedHttpRequests: config.graphql.batchMax > 1,
    parseOptions: limits.parseOptions,
    // Trusted documents: the listed ones come out of this store parsed and validated; in enforce
    // mode APQ is off, since anyone may register a hash in an APQ cache (trusted-documents.ts).
    // Parsed documents, bounded by the heap they take (document-store.ts); listed ones come from the list.
    documentStore: trustedDocuments ? trustedDocuments.documentStore(documents) : documents,
    ...persistedQueriesOption(trustedDocuments, persistedQueries),
    validationRules: limits.validationRules,
    // Apollo installs its cache-control plugin by default; it hooks every field resolution to compute
    // a cache policy, and this schema sets no cache hints, so it costs CPU for nothing (issue 6).
    // Order matters when several refuse an operation (the first listed wins): ill-formed strings,
    // then the cost limit, then access (scopes).
    plugins: [
      // First: it puts a listed document's text in place of its hash before anything reads it.
      ...(trustedDocuments ? [trustedDocuments.apolloPlugin()] : []),
      // The service's own request hooks, in this order, as one plugin (src/common/graphql/request-steps.ts).
      requestStepsPlugin<GraphQLContext>([
        emptyOperationNameStep(),
        errorReportingStep,
        wellFormedVariablesStep(config.limits.inputDepth),
        limits.step,
        subscriptionsOverHttpStep,
        operationAccessStep,
        requestLogStep,
        ...steps,
      ]),
      landingPage,
      ApolloServerPluginCacheControlDisabled(),
      // Apollo turns on federated inline traces (ftv1) by itself when the schema is a subgraph
      // (GRAPHQL_FEDERATION=true) and says so with console.log, outside the JSON log. Its per-field
      // timings come from resolver hooks, which graphql-jit's executor does not call, and they are
      // for Apollo's hosted reporting, which this service does not use.
      ApolloServerPluginInlineTraceDisabled(),
      ...plugins,
    ],
  });
  await apollo.start();
  return apollo;
}
