#!/usr/bin/env node
/**
 * A federation router for the petstore subgraph: Apollo's gateway (`@apollo/gateway`, the npm
 * registry's JavaScript router) serving federation/supergraph.graphql, forwarding each client's
 * `Authorization` header to every subgraph it calls. docs/federation.md; test/federation/router.test.ts
 * runs this very file as a process.
 *
 *   npm install @apollo/gateway@2.14.4 @apollo/server@5 graphql@16
 *   PETSTORE_URL=http://127.0.0.1:4000/graphql REVIEWS_URL=http://127.0.0.1:4001/graphql \
 *     ROUTER_PORT=4100 node federation/router.js
 *
 * Variables: SUPERGRAPH_FILE (default: supergraph.graphql beside this file), ROUTER_HOST (default
 * 127.0.0.1), ROUTER_PORT (default 4100; 0 picks a free port), and `<NAME>_URL` for each subgraph
 * (`PETSTORE_URL`, `REVIEWS_URL`) to override the URL composed into the supergraph.
 */
const fs = require('node:fs');
const path = require('node:path');
const { ApolloServer } = require('@apollo/server');
const { startStandaloneServer } = require('@apollo/server/standalone');
const { ApolloGateway, RemoteGraphQLDataSource } = require('@apollo/gateway');
const { GraphQLError } = require('graphql');

/** Client headers passed on to the subgraphs; nothing else is (the gateway forwards none by default). */
const FORWARDED_HEADERS = ['authorization'];

const supergraphSdl = fs.readFileSync(
  process.env.SUPERGRAPH_FILE || path.join(__dirname, 'supergraph.graphql'),
  'utf8',
);

/**
 * A subgraph behind the router. A subgraph answers a request it refuses before running it (a
 * malformed id, a limit, a missing key) with the error's own HTTP status (4xx, 503), and Apollo's
 * gateway turns every non-2xx answer into one error of its own, `"400: Bad Request"`, coded
 * INTERNAL_SERVER_ERROR unless the status is 401 or 403. Here the subgraph's first error is passed
 * on as it was given (its message and `extensions { code, status }`); the whole answer stays in
 * `extensions.response`, as the gateway puts it.
 */
class SubgraphDataSource extends RemoteGraphQLDataSource {
  async errorFromResponse(response) {
    const own = await super.errorFromResponse(response.clone());
    const body = await this.parseBody(response).catch(() => null);
    const first = Array.isArray(body?.errors) ? body.errors[0] : null;
    if (!first || typeof first.message !== 'string') return own;
    return new GraphQLError(first.message, { extensions: { ...first.extensions, response: own.extensions.response } });
  }
}

const gateway = new ApolloGateway({
  supergraphSdl,
  buildService: ({ name, url }) =>
    new SubgraphDataSource({
      url: process.env[`${name.toUpperCase()}_URL`] || url,
      willSendRequest({ request, context }) {
        for (const header of FORWARDED_HEADERS) {
          const value = context.headers?.[header];
          if (value) request.http.headers.set(header, Array.isArray(value) ? value.join(', ') : value);
        }
        // The client's address, appended as every proxy appends it: the subgraph (with TRUST_PROXY
        // naming this router) counts each anonymous client's rate limit apart, not all as the router.
        if (context.clientAddress) {
          const before = context.headers?.['x-forwarded-for'];
          request.http.headers.set(
            'x-forwarded-for',
            before ? `${before}, ${context.clientAddress}` : context.clientAddress,
          );
        }
      },
    }),
});

// Errors go to clients without the router's stack traces (Apollo Server adds them unless NODE_ENV is
// production), as the petstore itself sends none.
const server = new ApolloServer({ gateway, includeStacktraceInErrorResponses: false });
startStandaloneServer(server, {
  listen: { host: process.env.ROUTER_HOST || '127.0.0.1', port: Number(process.env.ROUTER_PORT ?? 4100) },
  context: async ({ req }) => ({ headers: req.headers, clientAddress: req.socket.remoteAddress }),
}).then(
  ({ url }) => console.log(`router ready at ${url}`),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

const stop = () => server.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
