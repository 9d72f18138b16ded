import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import {
  ApolloServerPluginLandingPageLocalDefault,
  ApolloServerPluginLandingPageProductionDefault,
} from '@apollo/server/plugin/landingPage/default';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { GraphQLContext } from './context';
import { errorReportingPlugin, formatError } from './errors';
import { createSchema } from './schema';

/** Apollo Server over the TypeGraphQL schema, draining with the Fastify server on close. */
export async function createApollo(app: FastifyInstance, config: Config): Promise<ApolloServer<GraphQLContext>> {
  const schema = await createSchema();
  const landingPage = config.graphql.landingPage
    ? config.env === 'production'
      ? ApolloServerPluginLandingPageProductionDefault({ footer: false })
      : ApolloServerPluginLandingPageLocalDefault({ footer: false, embed: true })
    : ApolloServerPluginLandingPageDisabled();
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    formatError,
    introspection: config.graphql.introspection,
    includeStacktraceInErrorResponses: false,
    plugins: [fastifyApolloDrainPlugin(app), errorReportingPlugin(), landingPage],
  });
  await apollo.start();
  return apollo;
}
