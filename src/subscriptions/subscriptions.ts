/**
 * GraphQL subscriptions: the graphql-ws protocol (the `graphql-ws` package) over @fastify/websocket,
 * on the same port and path as queries (GET /graphql with a WebSocket upgrade), so Apollo Client,
 * urql and the explorers subscribe with no configuration beyond the URL. docs/subscriptions.md.
 *
 * Security is that of queries:
 * - at the upgrade (before any WebSocket exists): the rate limit and credential hooks of every
 *   request, then a browser's `Origin` (CORS_ORIGINS; outside production also the same host: 403
 *   otherwise, subscription-access.ts), and the number of connections from the client's address
 *   (429). A refused upgrade always closes its socket (http/upgrade-guard.ts);
 * - at `connection_init`: the Bearer key from `connectionParams` (browsers cannot set WebSocket
 *   headers; an Authorization header on the upgrade works too). A bad key closes with 4401; the
 *   connections per key are counted;
 * - every message is charged to the caller's rate-limit budget, the one HTTP requests spend (over
 *   it: closed with 1008), and a client that does not read what it is sent is closed with 1013 once
 *   SUBSCRIPTION_MAX_BUFFERED_BYTES wait for it (subscription-socket.ts);
 * - at each `subscribe`: only subscription operations, the token, depth, alias, directive, input
 *   nesting and cost limits, the subscriptions per connection, and the whole document against the
 *   scope table, as for queries (subscription-operation.ts); errors are formatted and masked as over
 *   HTTP (no "Did you mean" without introspection);
 * - at `connection_init`, an access token (a JWT: docs/identity.md) is verified like a key; a bad one
 *   closes with 4401, an identity provider that cannot be reached with 1013 (try again later);
 * - while open: a revoked key closes its connections (4401) as soon as the key cache hears of it
 *   (api-key.cache.ts); a reload of the trusted documents that removes a subscription's document
 *   closes its connection (4403); an access token's connection closes with 4401 when the token expires, so
 *   no event reaches an expired session (the client signs in again, then reconnects); keep-alive pings drop dead peers; a client reading too slowly is closed
 *   (1013) once `SUBSCRIPTION_BUFFERED_EVENTS` events wait for one of its subscriptions, so it never
 *   makes the server hold more than that.
 *
 * Events come from the database (src/modules/events/store-events.ts). When the LISTEN connection is
 * lost, events are being missed: every connection is closed with 1013 ("try again later"), and new
 * ones are refused until it is back, so clients reconnect and refetch instead of silently missing
 * changes. On shutdown, subscriptions end after the events already queued for them are sent, without
 * a `complete` (they are not over for the client), then sockets close with 1001 ("going away"):
 * graphql-ws clients reconnect and subscribe again, to another process.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import fp from 'fastify-plugin';
import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type Context, type SubscribePayload } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { Config } from '../config';
import {
  AppError,
  BadRequestError,
  ErrorCode,
  RateLimitedError,
  ForbiddenError,
  UnavailableError,
} from '../errors/app-error';
import { knownError } from '../errors/database-errors';
import { rateLimitMessage, rateLimitSubject, type RateLimiter } from '../http/rate-limit';
import { addressBucket } from '../http/client-address';
import type { Services } from '../modules/services';
import type { ApiKeyCache } from '../modules/auth/api-key.cache';
import { looksLikeJwt, type TokenVerifier } from '../modules/auth/access-token';
import { callerIdentity, type Caller } from '../modules/auth/caller';
import { BEARER } from '../modules/auth/auth.hooks';
import type { StoreEvents } from '../modules/events/store-events';
import type { GraphQLContext } from '../modules/context';
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import { apolloError } from '../common/graphql/apollo-error';
import { Reads } from '../read/reads';
import { formatErrorFor } from '../policy/errors';
import type { GraphQLLimits } from '../policy/limits';
import { authorizationParams, ConnectionCounts, originAllowed } from './subscription-access';
import type { TrustedDocuments } from '../policy/trusted-documents';
import { checkSubscription, gqlError, type OperationChecks } from './subscription-operation';
import { overHttpRefusal } from '../policy/over-http';
import { serveGraphqlWs, TRY_AGAIN_LATER } from './subscription-socket';
import { pointsFor, type CostBudget } from '../policy/cost-budget';

/** WebSocket close code used besides graphql-ws's own (RFC 6455). */
const GOING_AWAY = 1001;
/** graphql-ws has no code for "too many connections"; its 4429 is the closest, and clients do not retry it. */
const TOO_MANY = CloseCode.TooManyInitialisationRequests;

export interface SubscriptionsOptions {
  /** SUBSCRIPTION_*: the bounds of connections and subscriptions. */
  settings: Config['subscriptions'];
  /** Bounds shared with HTTP: the largest message (BODY_LIMIT_BYTES) and input nesting (INPUT_DEPTH). */
  limitsConfig: Pick<Config['limits'], 'inputDepth'>;
  /** GRAPHQL_INTROSPECTION: without it, errors give no "Did you mean" hints. */
  introspection: boolean;
  /** CORS_ORIGINS: the browser origins that may open a connection. */
  corsOrigins: Config['cors']['origins'];
  /** SHUTDOWN_TIMEOUT_MS: half of it (at most 5 s) is given to subscriptions to end on shutdown. */
  shutdownTimeoutMs: number;
  services: Services;
  schema: GraphQLSchema;
  limits: GraphQLLimits;
  /** Charges each subscription its cost when it starts (RATE_LIMIT_COST_BUDGET); null: off. */
  costBudget?: CostBudget | null;
  events: StoreEvents;
  /** The rate limiter HTTP requests are counted by: every WebSocket message is charged to it too. */
  limiter: Pick<RateLimiter, 'charge'>;
  apiKeyCache?: ApiKeyCache;
  /** TRUSTED_DOCUMENTS allow/enforce: subscribe messages follow the same list (trusted-documents.ts). */
  trustedDocuments?: TrustedDocuments | null;
  /** Access tokens (AUTH_JWT_*, AUTH_DEV_TOKENS); null: API keys only. */
  tokens?: TokenVerifier | null;
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
  /** Closes the connection with a code and reason, and cuts its socket soon after (serveGraphqlWs). */
  close: (code: number, reason: string) => void;
  address: string;
  caller: Caller | null;
  /** The key as presented, to re-check it when the key cache hears that it changed. */
  token: string | null;
  /** Releases this connection's places in the per-address and per-key counts (once each). */
  release: (() => void)[];
  /** The `subscribe` payloads of its open subscriptions, by id (re-checked when the trusted list is re-read). */
  subscriptions: Map<string, SubscribePayload>;
}

type Extra = { socket: WebSocket; request: FastifyRequest };
type WsContext = Context<Record<string, unknown> | undefined, Extra>;

/** The longest delay Node's timers take (about 24.8 days); a later expiry re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Closes `socket` with 4401 when the access token it signed in with expires (`expiresAt`, ms):
 * no event reaches an expired session. Returns the timer's release (the connection closed first).
 */
function closeOnExpiry(close: Connection['close'], expiresAt: number): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt - Date.now();
    if (left <= 0) return close(CloseCode.Unauthorized, 'Unauthorized: the access token expired');
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}

/** A formatted error as a client sees it; unexpected ones are logged and carry an id to quote. */
function formatForClient(
  formatError: ReturnType<typeof formatErrorFor>,
  error: GraphQLError,
  requestId: string,
  log: FastifyRequest['log'],
) {
  const formatted = formatError(error.toJSON(), error);
  if (formatted.extensions?.code !== ErrorCode.INTERNAL) return formatted;
  log.error({ err: error.originalError ?? error, path: error.path }, 'unexpected GraphQL error (subscription)');
  return {
    ...formatted,
    message: `${formatted.message} (request id ${requestId})`,
    extensions: { ...formatted.extensions, requestId },
  };
}

/** This process's connections, and whether it is shutting down: what every step below reads. */
class ConnectionState {
  readonly connections = new Map<WebSocket, Connection>();
  /** graphql-ws's contexts of the connections it acknowledged (their subscriptions, on shutdown). */
  readonly contexts = new Set<WsContext>();
  readonly perAddress = new ConnectionCounts();
  /** The per-address slot each accepted upgrade took at its check, until its handler takes it over. */
  readonly addressSlots = new WeakMap<FastifyRequest, () => void>();
  readonly perKey = new ConnectionCounts();
  closing = false;
}

/** Re-checks the keys of open connections after a key change (`''`: every key). */
async function recheckKeys(state: ConnectionState, apiKeys: Services['apiKeys'], payload: string): Promise<void> {
  for (const conn of state.connections.values()) {
    if (!conn.token || conn.caller?.kind !== 'key') continue;
    if (payload !== '' && payload !== String(conn.caller.keyId)) continue;
    const caller = await apiKeys.authenticate(conn.token).catch(() => undefined);
    // The key cannot be read (the database is unreachable): it may be what was just revoked, and
    // nothing would check it again until another change. The client reconnects, and its key is read
    // at connection_init, which closes with 1013 as well while the database cannot answer.
    if (caller === undefined)
      conn.close(TRY_AGAIN_LATER, 'The API key changed and cannot be checked now; try again later');
    else if (caller === null) conn.close(CloseCode.Unauthorized, 'Unauthorized: the API key was revoked');
    else if (caller.scopes.join() !== conn.caller.scopes.join())
      conn.close(CloseCode.Forbidden, "Forbidden: the API key's scopes changed; reconnect");
  }
}

/** What `connection_init` needs besides the connection: how to check a credential, and the state of events. */
type InitDeps = Pick<SubscriptionsOptions, 'settings' | 'services' | 'events' | 'tokens'>;

/**
 * The caller of a `connectionParams.Authorization` value (an access token verified, or an API key
 * looked up), or null once the socket is closed for it (a malformed value, a bad credential, an
 * identity provider that cannot be reached, or the socket closed during the lookup).
 */
async function callerFromParam(
  state: ConnectionState,
  conn: Connection,
  token: string | null,
  { services, tokens }: InitDeps,
): Promise<Caller | null> {
  if (!token) {
    conn.close(
      CloseCode.Unauthorized,
      'Unauthorized: connectionParams.Authorization must be "Bearer <API key>" or "Bearer <access token>"',
    );
    return null;
  }
  let caller: Caller | null = null;
  let refused: AppError | null = null;
  try {
    caller = tokens && looksLikeJwt(token) ? await tokens.verify(token) : await services.apiKeys.authenticate(token);
  } catch (error) {
    // As over HTTP (knownError): a database that cannot check the key is UNAVAILABLE, try again later.
    refused = knownError(error);
    if (!refused) throw error;
  }
  // The socket may have closed during the lookup: its close handler has already run, so
  // nothing may be counted for it any more (the count would never be released).
  if (!state.connections.has(conn.socket)) return null;
  if (refused instanceof UnavailableError) {
    conn.close(TRY_AGAIN_LATER, refused.message);
    return null;
  }
  if (refused || !caller) {
    const why = refused ? refused.message : 'the API key is unknown or revoked';
    // A close reason is at most 123 bytes (RFC 6455): conn.close cuts it to that (closeReason).
    conn.close(CloseCode.Unauthorized, `Unauthorized: ${why}`);
    return null;
  }
  return caller;
}

/** `connection_init`: the key (connectionParams, or the upgrade's Authorization header), and its count. */
async function acceptConnection(state: ConnectionState, deps: InitDeps, ctx: WsContext): Promise<boolean> {
  const { socket, request } = ctx.extra;
  const { settings } = deps;
  const conn = state.connections.get(socket);
  if (!conn) return false;
  if (state.closing) {
    conn.close(GOING_AWAY, 'Server shutting down');
    return false;
  }
  if (!deps.events.listening) {
    conn.close(TRY_AGAIN_LATER, 'Event stream unavailable; try again later');
    return false;
  }
  let caller: Caller | null = request.caller;
  let token = caller ? (BEARER.exec(request.headers.authorization ?? '')?.[1] ?? null) : null;
  const params = authorizationParams(ctx.connectionParams);
  const upgrade = request.headers.authorization;
  // Two credentials are not one valid credential (as two Authorization headers over HTTP): which of
  // them a proxy in front, or a log, took for the caller's is anyone's guess.
  const credential = (v: unknown) => (typeof v === 'string' ? (BEARER.exec(v)?.[1] ?? v) : v);
  const distinct = new Set(
    [...params, ...(params.length > 0 && upgrade !== undefined ? [upgrade] : [])].map(credential),
  );
  if (distinct.size > 1) {
    conn.close(
      CloseCode.Unauthorized,
      "Unauthorized: send one credential (connectionParams or the upgrade's Authorization header), not several",
    );
    return false;
  }
  const param = params[0];
  if (param !== undefined) {
    token = typeof param === 'string' ? (BEARER.exec(param)?.[1] ?? null) : null;
    caller = await callerFromParam(state, conn, token, deps);
    if (!caller) return false;
  }
  if (caller) {
    const key = callerIdentity(caller);
    if (state.perKey.count(key) >= settings.connectionsPerKey) {
      const who = caller.kind === 'key' ? 'API key' : 'signed-in person';
      conn.close(TOO_MANY, `Too many connections for this ${who} (at most ${settings.connectionsPerKey})`);
      return false;
    }
    conn.release.push(state.perKey.hold(key));
    conn.caller = caller;
    conn.token = token;
    if (caller.kind === 'key') {
      // Read again now that key changes find this connection (recheckKeys): a revocation heard
      // before, since the upgrade request was checked or while the lookup above ran, was missed by
      // it, and has dropped the key from the cache, so this read sees it (a cache hit otherwise).
      const current = await callerFromParam(state, conn, token, deps);
      if (!current) return false;
      conn.caller = current;
    }
    if (caller.kind === 'token') conn.release.push(closeOnExpiry(conn.close, caller.expiresAt));
  }
  state.contexts.add(ctx);
  return true;
}

/** What a `subscribe` needs: the operation's checks, the budget, and where its events come from. */
type SubscribeDeps = Pick<
  SubscriptionsOptions,
  'settings' | 'services' | 'schema' | 'limits' | 'costBudget' | 'events'
> & { checks: OperationChecks };

/** The context of one subscription's resolvers: its own reads, and its stream of events. */
function subscriptionContext(
  conn: Connection,
  request: FastifyRequest,
  id: string,
  { services, events, settings }: SubscribeDeps,
): GraphQLContext {
  return {
    requestId: `${request.id}:${id}`,
    log: request.log,
    caller: conn.caller,
    services,
    // One per subscription: its loaders batch an event's reads without caching any.
    reads: new Reads(services, conn.caller),
    idempotencyKey: undefined,
    batched: false,
    openEventStream: (select) =>
      events.hub.subscribe(select, {
        maxBuffered: settings.bufferedEvents,
        onOverflow: () =>
          conn.close(
            TRY_AGAIN_LATER,
            `Slow consumer: more than ${settings.bufferedEvents} events waiting; reconnect and refetch`,
          ),
      }),
  };
}

/**
 * `subscribe`: the subscriptions per connection, the operation's checks (subscription-operation.ts),
 * the cost budget; then what graphql-ws executes, or the errors it sends instead.
 */
async function startSubscription(
  state: ConnectionState,
  deps: SubscribeDeps,
  ctx: WsContext,
  id: string,
  payload: SubscribePayload,
): Promise<ExecutionArgs | readonly GraphQLError[]> {
  const { socket, request } = ctx.extra;
  const { settings, schema, limits, costBudget } = deps;
  const conn = state.connections.get(socket);
  const fail = (error: AppError) => [gqlError(error)];
  if (state.closing && conn) {
    // Not an error the client sees (that would end its subscription for good): the socket closes
    // first, so the error below is never sent, and the client subscribes again on its next
    // connection (to another process).
    conn.close(GOING_AWAY, 'Server shutting down');
    return fail(new BadRequestError('The server is shutting down; reconnect'));
  }
  if (!conn) return fail(new BadRequestError('The connection is closing; reconnect'));
  // This subscription is already counted in ctx.subscriptions.
  if (Object.keys(ctx.subscriptions).length > settings.perConnection) {
    return fail(new RateLimitedError(`At most ${settings.perConnection} subscriptions per connection`));
  }
  const checked = checkSubscription(deps.checks, conn.caller, payload);
  if ('errors' in checked) return checked.errors;
  // With a cost budget, a subscription is charged its cost once, when it starts (cost-budget.ts).
  const charged = costBudget
    ? await costBudget.charge(
        conn.caller,
        conn.address,
        pointsFor(limits.operationCost(schema, checked.document, checked.variables, payload.operationName)),
      )
    : null;
  if (charged?.refused) return fail(charged.refused);
  conn.subscriptions.set(id, payload);
  return {
    schema,
    document: checked.document,
    operationName: payload.operationName,
    variableValues: checked.variables,
    contextValue: subscriptionContext(conn, request, id, deps),
  };
}

/** graphql-ws's protocol server: connection_init, subscribe, and the errors formatted as over HTTP. */
function graphqlWsServer(state: ConnectionState, options: SubscriptionsOptions) {
  const { schema, limits, limitsConfig, introspection, trustedDocuments } = options;
  const checks: OperationChecks = {
    schema,
    limits,
    inputDepth: limitsConfig.inputDepth,
    trustedDocuments,
  };
  const formatError = formatErrorFor({ hideSuggestions: !introspection });
  return makeServer<Record<string, unknown> | undefined, Extra>({
    schema,
    onConnect: (ctx) => acceptConnection(state, options, ctx),
    onClose(ctx) {
      state.contexts.delete(ctx);
    },
    onSubscribe: (ctx, id, payload) => startSubscription(state, { ...options, checks }, ctx, id, payload),
    onComplete(ctx, id) {
      state.connections.get(ctx.extra.socket)?.subscriptions.delete(id);
    },
    onNext(_ctx, _id, _payload, args, result) {
      if (!result.errors) return;
      const context = args.contextValue as GraphQLContext;
      return {
        ...result,
        errors: result.errors.map((e) => formatForClient(formatError, e, context.requestId, context.log)),
      };
    },
    onError(ctx, id, _payload, errors) {
      const { request } = ctx.extra;
      return errors.map((e) => formatForClient(formatError, e, `${request.id}:${id}`, request.log));
    },
  });
}

/**
 * Shutdown (Fastify's preClose, before the HTTP server stops): subscriptions end once their queued
 * events are sent (no `complete` goes out: `goingAway` in subscription-socket.ts), then every socket
 * closes with 1001, which graphql-ws clients answer by reconnecting and subscribing again; bounded by
 * the shutdown timeout.
 */
async function endOnShutdown(
  state: ConnectionState,
  events: StoreEvents,
  shutdownTimeoutMs: number,
  websocketServer: FastifyInstance['websocketServer'],
): Promise<void> {
  state.closing = true;
  const deadline = Date.now() + Math.min(5_000, shutdownTimeoutMs / 2);
  events.hub.endAll();
  while ([...state.contexts].some((c) => Object.keys(c.subscriptions).length > 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const closed = [...state.connections.keys()].map(
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
  for (const socket of state.connections.keys()) socket.terminate();
  websocketServer.close();
}

/** The GET /graphql route's hooks (checkUpgrade, wsHandler) over graphql-ws's server, and the counts. */
function subscriptionRoute(
  state: ConnectionState,
  server: ReturnType<typeof graphqlWsServer>,
  { settings, corsOrigins, events, limiter }: SubscriptionsOptions,
): Subscriptions {
  return {
    async checkUpgrade(request, reply) {
      if (!request.ws) return;
      if (!originAllowed(request, corsOrigins, settings.sameHostOrigin)) {
        throw new ForbiddenError(
          `Origin ${request.headers.origin} may not open WebSocket connections here (CORS_ORIGINS)`,
        );
      }
      const bucket = addressBucket(request.ip);
      if (state.perAddress.count(bucket) >= settings.connectionsPerAddress) {
        // No schedule frees a slot; a few seconds is a polite first retry.
        void reply.header('retry-after', '5');
        throw new RateLimitedError(
          `Too many WebSocket connections from this address (at most ${settings.connectionsPerAddress})`,
        );
      }
      // Taken now, in the same step as the check: the hooks after it may wait (the response cache's
      // Redis lookup), and upgrades checked meanwhile must see this one counted. The connection's
      // close releases it; so does its socket's, if a later hook refuses the upgrade.
      const release = state.perAddress.hold(bucket);
      state.addressSlots.set(request, release);
      request.raw.socket?.once('close', release);
    },
    wsHandler(this: FastifyInstance, socket, request) {
      const conn: Connection = {
        socket,
        close: (code, reason) => socket.close(code, reason),
        address: request.ip,
        caller: null,
        token: null,
        release: [],
        subscriptions: new Map(),
      };
      state.connections.set(socket, conn);
      conn.release.push(state.addressSlots.get(request) ?? state.perAddress.hold(addressBucket(conn.address)));
      socket.once('close', () => {
        state.connections.delete(socket);
        for (const release of conn.release) release();
      });
      conn.close = serveGraphqlWs(server, socket, { socket, request } satisfies Extra, {
        keepAliveMs: settings.keepAliveMs,
        maxBufferedBytes: settings.maxBufferedBytes,
        log: request.log,
        goingAway: () => state.closing,
        // The payer is the key once connection_init named one, the address before and without.
        charge: async () => {
          const charge = await limiter.charge(rateLimitSubject(conn.caller, conn.address));
          return charge.allowed ? null : rateLimitMessage(charge);
        },
      });
    },
    get connectionCount() {
      return state.connections.size;
    },
    get subscriptionCount() {
      return events.hub.size;
    },
  };
}

/**
 * Serves graphql-ws through @fastify/websocket (its plugin registered on `app`); returns the
 * route's hooks, which the GraphQL endpoint puts on GET /graphql (graphql/graphql.plugin.ts).
 */
export async function registerSubscriptions(
  app: FastifyInstance,
  options: SubscriptionsOptions,
): Promise<Subscriptions> {
  const { services, events, apiKeyCache, shutdownTimeoutMs } = options;
  const state = new ConnectionState();
  apiKeyCache?.onChange((payload) => void recheckKeys(state, services.apiKeys, payload));
  if (apiKeyCache) {
    // A change made without the notification (an UPDATE by hand) reaches HTTP when the key's cache
    // entry expires, API_KEY_CACHE_TTL_MS after it was read; an open connection never reads its key
    // again by itself. So that often every key of an open connection is dropped from the cache as a
    // heard change would drop it, and its connections re-read it (recheckKeys, through onChange).
    const timer = setInterval(() => {
      // Shutting down: the connections are closing with 1001 already.
      if (state.closing) return;
      const keys = new Set<string>();
      for (const conn of state.connections.values())
        if (conn.caller?.kind === 'key') keys.add(String(conn.caller.keyId));
      for (const key of keys) apiKeyCache.invalidate(key);
    }, apiKeyCache.ttlMs);
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }
  // A reload (SIGHUP) that removes a document ends its open subscriptions, as a revoked key ends its
  // connections: the connection closes with 4403, and the client, reconnecting, is refused that
  // subscription (PERSISTED_QUERY_NOT_IN_LIST) and gets its others back.
  const trusted = options.trustedDocuments;
  trusted?.onReload(() => {
    for (const conn of state.connections.values()) {
      if ([...conn.subscriptions.values()].every((payload) => trusted.stillAdmits(payload, conn.caller))) continue;
      conn.close(
        CloseCode.Forbidden,
        'Forbidden: a subscription of this connection is no longer a trusted document; reconnect',
      );
    }
  });
  // Events missed while the LISTEN connection is down: clients must reconnect and refetch.
  events.onStateChange((listening) => {
    if (listening) return;
    for (const conn of state.connections.values())
      conn.close(TRY_AGAIN_LATER, 'Event stream interrupted; reconnect and refetch');
  });
  const server = graphqlWsServer(state, options);
  await app.register(fastifyWebsocket, {
    // A message is at most SUBSCRIPTION_MESSAGE_MAX_BYTES (ws would accept 100 MiB): an open
    // subscription holds its subscribe message, so it bounds what one subscription may hold.
    options: {
      maxPayload: options.settings.maxMessageBytes,
      handleProtocols: (protocols) => handleProtocols(protocols),
    },
    // An error on an upgraded socket before it is served (serveGraphqlWs has its own): one line, cut.
    errorHandler: (error, socket, request) => {
      request.log.warn({ err: { message: error.message } }, 'WebSocket error');
      socket.terminate();
    },
    preClose: async function (this: FastifyInstance) {
      await endOnShutdown(state, events, shutdownTimeoutMs, this.websocketServer);
    },
  });
  return subscriptionRoute(state, server, options);
}

/**
 * Subscriptions as a plugin: registers them (above) and decorates the app with them (`app.subscriptions`:
 * the counts, for metrics). fastify-plugin: @fastify/websocket must be the app's, so that the
 * GET /graphql route (registered next to it, graphql/graphql.plugin.ts) is served over WebSocket, and
 * the decorator is the app's.
 */
export const subscriptionsPlugin = fp(
  async (app: FastifyInstance, options: SubscriptionsOptions) => {
    app.decorate('subscriptions', await registerSubscriptions(app, options));
  },
  { name: 'subscriptions' },
);

/**
 * A request step (src/common/graphql/request-steps.ts): a subscription sent over HTTP is a 400
 * BAD_REQUEST pointing at the WebSocket (graphql-js would otherwise run the subscription's resolver
 * once without an event).
 */
const subscriptionsOverHttp: RequestStepListener<GraphQLContext> = {
  didResolveOperation(rc) {
    const refused = rc.operation ? overHttpRefusal(rc.operation) : null;
    if (refused) throw apolloError(refused);
  },
};
export const subscriptionsOverHttpStep: RequestStep<GraphQLContext> = () => subscriptionsOverHttp;
