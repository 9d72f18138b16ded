/**
 * GraphQL subscriptions: the graphql-ws protocol (the `graphql-ws` package) over @fastify/websocket,
 * on the same port and path as queries (GET /graphql with a WebSocket upgrade), so Apollo Client,
 * urql and the explorers subscribe with no configuration beyond the URL. README, "Subscriptions".
 *
 * Security is that of queries:
 * - at the upgrade (before any WebSocket exists): the rate limit and credential hooks of every
 *   request, then a browser's `Origin` (same origin, or one of CORS_ORIGINS: 403 otherwise), and
 *   the number of connections from the client's address (429);
 * - at `connection_init`: the Bearer key from `connectionParams` (browsers cannot set WebSocket
 *   headers; an Authorization header on the upgrade works too). A bad key closes with 4401; the
 *   connections per key are counted;
 * - at each `subscribe`: only subscription operations, the token, depth, alias, directive and cost
 *   limits of src/graphql/limits.ts, the subscriptions per connection, and the whole document
 *   against the scope table, as for queries (src/graphql/operation-access.ts);
 * - while open: a revoked key closes its connections (4401) as soon as the key cache hears of it
 *   (api-key.cache.ts); keep-alive pings drop dead peers; a client reading too slowly is closed
 *   (1013) once `SUBSCRIPTION_BUFFERED_EVENTS` events wait for one of its subscriptions, so it never
 *   makes the server hold more than that.
 *
 * Events come from the database (src/modules/events/store-events.ts). When the LISTEN connection is
 * lost, events are being missed: every connection is closed with 1013 ("try again later"), and new
 * ones are refused until it is back, so clients reconnect and refetch instead of silently missing
 * changes. On shutdown, subscriptions end after the events already queued for them are sent, then
 * sockets close with 1001 ("going away"); graphql-ws clients reconnect (to another process).
 */
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
} from 'graphql';
import { CloseCode, handleProtocols, type Context } from 'graphql-ws';
import { makeHandler } from 'graphql-ws/use/@fastify/websocket';
import type { WebSocket } from 'ws';
import type { Config } from '../config';
import { BadRequestError, ErrorCode, RateLimitedError, ForbiddenError, type AppError } from '../errors/app-error';
import type { Services } from '../services';
import type { ApiKeyCache } from '../modules/auth/api-key.cache';
import type { Caller } from '../modules/auth/api-key.service';
import { BEARER } from '../modules/auth/auth.hooks';
import type { StoreEvents } from '../modules/events/store-events';
import { createLoaders, type GraphQLContext } from './context';
import { formatError } from './errors';
import type { GraphQLLimits } from './limits';
import { operationRefusal } from './operation-access';
import { pointsFor, type CostBudget } from './cost-budget';

/** WebSocket close codes used besides graphql-ws's own (RFC 6455). */
const GOING_AWAY = 1001;
const TRY_AGAIN_LATER = 1013;
/** graphql-ws has no code for "too many connections"; its 4429 is the closest, and clients do not retry it. */
const TOO_MANY = CloseCode.TooManyInitialisationRequests;

export interface SubscriptionsOptions {
  config: Config;
  services: Services;
  schema: GraphQLSchema;
  limits: GraphQLLimits;
  /** Charges each subscription its cost when it starts (RATE_LIMIT_COST_BUDGET); null: off. */
  costBudget?: CostBudget | null;
  events: StoreEvents;
  apiKeyCache?: ApiKeyCache;
}

/** What the rest of the app sees: the route's two hooks and the counts (for metrics). */
export interface Subscriptions {
  /** Route `preValidation`: refuses an upgrade before it happens (Origin, per-address, shutdown). */
  checkUpgrade(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Route `wsHandler`. */
  wsHandler(this: FastifyInstance, socket: WebSocket, request: FastifyRequest): void;
  /** Open WebSocket connections. */
  readonly connectionCount: number;
  /** Open subscriptions (streams of events) in this process. */
  readonly subscriptionCount: number;
}

interface Connection {
  socket: WebSocket;
  address: string;
  caller: Caller | null;
  /** The key as presented, to re-check it when the key cache hears that it changed. */
  token: string | null;
}

type Extra = { socket: WebSocket; request: FastifyRequest };
type WsContext = Context<Record<string, unknown> | undefined, Extra>;

/** An AppError as the GraphQL error graphql-ws sends (formatted by `format` below). */
const gqlError = (error: AppError) => new GraphQLError(error.message, { originalError: error });

/** The token a `connectionParams` object carries: `Authorization`, or `headers.Authorization`, any case. */
function authorizationParam(params: Record<string, unknown> | undefined): unknown {
  if (!params) return undefined;
  const find = (o: Record<string, unknown>) =>
    Object.entries(o).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  const direct = find(params);
  if (direct !== undefined) return direct;
  const headers = params.headers;
  return headers && typeof headers === 'object' ? find(headers as Record<string, unknown>) : undefined;
}

/** Same origin as the request, or an allowed CORS origin. Requests without Origin are not browsers. */
function originAllowed(request: FastifyRequest, allowed: Config['cors']['origins']): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || allowed === '*') return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

export async function registerSubscriptions(
  app: FastifyInstance,
  { config, services, schema, limits, costBudget, events, apiKeyCache }: SubscriptionsOptions,
): Promise<Subscriptions> {
  const settings = config.subscriptions;
  const connections = new Map<WebSocket, Connection>();
  const contexts = new Set<WsContext>();
  const perAddress = new Map<string, number>();
  const perKey = new Map<string, number>();
  let closing = false;

  const bump = (map: Map<string, number>, key: string, by: number) => {
    const n = (map.get(key) ?? 0) + by;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  };

  /** A formatted error as a client sees it; unexpected ones are logged and carry an id to quote. */
  const format = (error: GraphQLError, requestId: string, log: FastifyRequest['log']) => {
    const formatted = formatError(error.toJSON(), error);
    if (formatted.extensions?.code !== ErrorCode.INTERNAL) return formatted;
    log.error({ err: error.originalError ?? error, path: error.path }, 'unexpected GraphQL error (subscription)');
    return {
      ...formatted,
      message: `${formatted.message} (request id ${requestId})`,
      extensions: { ...formatted.extensions, requestId },
    };
  };

  /** Re-checks the keys of open connections after a key change (`''`: every key). */
  const recheckKeys = async (payload: string) => {
    for (const conn of connections.values()) {
      if (!conn.token || !conn.caller) continue;
      if (payload !== '' && payload !== String(conn.caller.keyId)) continue;
      const caller = await services.apiKeys.authenticate(conn.token).catch(() => undefined);
      if (caller === undefined) continue; // the database is unreachable: the next change re-checks
      if (caller === null) conn.socket.close(CloseCode.Unauthorized, 'Unauthorized: the API key was revoked');
      else if (caller.scopes.join() !== conn.caller.scopes.join())
        conn.socket.close(CloseCode.Forbidden, "Forbidden: the API key's scopes changed; reconnect");
    }
  };
  apiKeyCache?.onChange((payload) => void recheckKeys(payload));

  // Events missed while the LISTEN connection is down: clients must reconnect and refetch.
  events.onStateChange((listening) => {
    if (listening) return;
    for (const conn of connections.values())
      conn.socket.close(TRY_AGAIN_LATER, 'Event stream interrupted; reconnect and refetch');
  });

  const handler = makeHandler<Record<string, unknown> | undefined, Extra>(
    {
      schema,
      async onConnect(ctx) {
        const { socket, request } = ctx.extra;
        const conn = connections.get(socket);
        if (!conn) return false;
        if (closing) {
          socket.close(GOING_AWAY, 'Server shutting down');
          return false;
        }
        if (!events.listening) {
          socket.close(TRY_AGAIN_LATER, 'Event stream unavailable; try again later');
          return false;
        }
        const param = authorizationParam(ctx.connectionParams);
        if (param !== undefined) {
          const token = typeof param === 'string' ? BEARER.exec(param)?.[1] : undefined;
          if (!token) {
            socket.close(
              CloseCode.Unauthorized,
              'Unauthorized: connectionParams.Authorization must be "Bearer <API key>"',
            );
            return false;
          }
          const caller = await services.apiKeys.authenticate(token);
          if (!caller) {
            socket.close(CloseCode.Unauthorized, 'Unauthorized: the API key is unknown or revoked');
            return false;
          }
          conn.caller = caller;
          conn.token = token;
        } else if (request.caller) {
          // Authorization header on the upgrade request (non-browser clients), checked by auth.hooks.ts.
          conn.caller = request.caller;
          conn.token = BEARER.exec(request.headers.authorization ?? '')?.[1] ?? null;
        }
        if (conn.caller) {
          const key = String(conn.caller.keyId);
          if ((perKey.get(key) ?? 0) >= settings.connectionsPerKey) {
            conn.caller = null;
            socket.close(TOO_MANY, `Too many connections for this API key (at most ${settings.connectionsPerKey})`);
            return false;
          }
          bump(perKey, key, 1);
        }
        contexts.add(ctx);
        return true;
      },
      onClose(ctx) {
        contexts.delete(ctx);
      },
      async onSubscribe(ctx, id, payload) {
        const { socket, request } = ctx.extra;
        const conn = connections.get(socket)!;
        const requestId = `${request.id}:${id}`;
        const fail = (error: AppError | GraphQLError) => [error instanceof GraphQLError ? error : gqlError(error)];
        if (closing) return fail(new BadRequestError('The server is shutting down; reconnect'));
        // This subscription is already counted in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > settings.perConnection) {
          return fail(new RateLimitedError(`At most ${settings.perConnection} subscriptions per connection`));
        }
        let document: DocumentNode;
        try {
          document = parse(payload.query, limits.parseOptions);
        } catch (error) {
          const e = error as GraphQLError;
          return fail(
            new GraphQLError(e.message, {
              nodes: e.nodes,
              source: e.source,
              positions: e.positions,
              extensions: { code: 'GRAPHQL_PARSE_FAILED' },
            }),
          );
        }
        const errors = validate(schema, document, [...specifiedRules, ...limits.validationRules]);
        if (errors.length > 0) {
          return errors.map((e) =>
            e.originalError
              ? e
              : new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
          );
        }
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return fail(new BadRequestError('Unable to identify the operation (operationName?)'));
        if (operation.operation !== 'subscription') {
          return fail(
            new BadRequestError('Only subscriptions are served over WebSocket; send queries and mutations over HTTP'),
          );
        }
        const variables = payload.variables ?? {};
        const cost = limits.costError(schema, document, variables);
        if (cost) return [cost];
        // The whole document against the scope table, as for queries (operation-access.ts): the
        // subscription field and everything it selects (`order { pet { orders } }` needs orders:read).
        const refused = operationRefusal(schema, document, operation, conn.caller, variables);
        if (refused) return fail(refused);
        // With a cost budget, a subscription is charged its cost once, when it starts (cost-budget.ts).
        const charged = costBudget
          ? await costBudget.charge(
              conn.caller,
              conn.address,
              pointsFor(limits.operationCost(schema, document, variables, payload.operationName)),
            )
          : null;
        if (charged?.refused) return fail(charged.refused);
        const contextValue: GraphQLContext = {
          requestId,
          log: request.log,
          caller: conn.caller,
          services,
          loaders: createLoaders(services),
          idempotencyKey: undefined,
          batched: false,
          // Events are delivered one at a time: the DataLoaders batch what a payload selects.
          planReads: false,
          openEventStream: (select) =>
            events.hub.subscribe(select, {
              maxBuffered: settings.bufferedEvents,
              onOverflow: () =>
                socket.close(
                  TRY_AGAIN_LATER,
                  `Slow consumer: more than ${settings.bufferedEvents} events waiting; reconnect and refetch`,
                ),
            }),
        };
        const args: ExecutionArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: variables,
          contextValue,
        };
        return args;
      },
      onNext(_ctx, id, _payload, args, result) {
        if (!result.errors) return;
        const context = args.contextValue as GraphQLContext;
        return { ...result, errors: result.errors.map((e) => format(e, context.requestId, context.log)) };
      },
      onError(ctx, id, _payload, errors) {
        const { request } = ctx.extra;
        return errors.map((e) => format(e, `${request.id}:${id}`, request.log));
      },
    },
    settings.keepAliveMs,
  );

  await app.register(fastifyWebsocket, {
    // A message is at most what an HTTP body may be (ws would accept 100 MiB).
    // graphql-ws's subprotocol negotiation from the first connection on (its handler sets it lazily).
    options: { maxPayload: config.limits.bodyBytes, handleProtocols: (protocols) => handleProtocols(protocols) },
    // Shutdown (Fastify's preClose, before the HTTP server stops): subscriptions end once their
    // queued events are sent, then every socket closes with 1001; bounded by the shutdown timeout.
    preClose: async function (this: FastifyInstance) {
      closing = true;
      const deadline = Date.now() + Math.min(5_000, config.shutdownTimeoutMs / 2);
      events.hub.endAll();
      while ([...contexts].some((c) => Object.keys(c.subscriptions).length > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const closed = [...connections.keys()].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            socket.close(GOING_AWAY, 'Server shutting down');
          }),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(closed),
        new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()) + 500))),
      ]);
      clearTimeout(timer);
      for (const socket of connections.keys()) socket.terminate();
      this.websocketServer.close();
    },
  });

  return {
    async checkUpgrade(request, reply) {
      if (!request.ws) return;
      if (!originAllowed(request, config.cors.origins)) {
        throw new ForbiddenError(
          `Origin ${request.headers.origin} may not open WebSocket connections here (CORS_ORIGINS)`,
        );
      }
      if ((perAddress.get(request.ip) ?? 0) >= settings.connectionsPerAddress) {
        // No schedule frees a slot; a few seconds is a polite first retry.
        void reply.header('retry-after', '5');
        throw new RateLimitedError(
          `Too many WebSocket connections from this address (at most ${settings.connectionsPerAddress})`,
        );
      }
    },
    wsHandler(this: FastifyInstance, socket, request) {
      const conn: Connection = { socket, address: request.ip, caller: null, token: null };
      connections.set(socket, conn);
      bump(perAddress, conn.address, 1);
      socket.once('close', () => {
        connections.delete(socket);
        bump(perAddress, conn.address, -1);
        if (conn.caller) bump(perKey, String(conn.caller.keyId), -1);
      });
      handler.call(this, socket, request);
    },
    get connectionCount() {
      return connections.size;
    },
    get subscriptionCount() {
      return events.hub.size;
    },
  };
}

/**
 * Apollo plugin: a subscription sent over HTTP is a 400 BAD_REQUEST pointing at the WebSocket
 * (graphql-js would otherwise run the subscription's resolver once without an event).
 */
export function subscriptionsOverHttpPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(rc) {
          if (rc.operation?.operation !== 'subscription') return;
          const cause = new BadRequestError(
            'Subscriptions are served over WebSocket (the graphql-ws protocol) at /graphql, not over HTTP',
          );
          throw new GraphQLError(cause.message, {
            originalError: cause,
            extensions: { http: { status: 400, headers: new HeaderMap() } },
          });
        },
      };
    },
  };
}
