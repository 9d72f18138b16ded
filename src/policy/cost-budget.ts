/**
 * Fair use by cost (RATE_LIMIT_COST_BUDGET, docs/cost-limits.md): each GraphQL operation is charged
 * its cost, computed by the cost model of the cost limit (limits.ts `operationCost`, so both agree),
 * against a budget of points per caller (API key, or client address when anonymous) per
 * RATE_LIMIT_WINDOW_MS. An operation that does not fit in what is left is refused before it runs
 * (429 RATE_LIMITED, Retry-After) and spends nothing. Every GraphQL answer says where the caller
 * stands: `extensions.cost` and the RateLimit-* headers, in points.
 *
 * When each kind of operation is charged:
 * - a single operation: in `responseForOperation`, the step Apollo runs after every
 *   `didResolveOperation` check passed (cost limit, scope table) and before execution; its answer
 *   replaces execution when the charge is refused. An operation refused by those checks spends nothing.
 * - a batch: as a whole, in the route's preHandler, before any of its operations starts (Apollo runs
 *   them concurrently, so one refused halfway would leave the others run): the sum of the costs of
 *   the operations that will run (those validation, the well-formed variables check, the cost limit,
 *   the WebSocket-only check of subscriptions, the scope table and variable coercion let through). A trusted document named by its hash (`documentId`, `persistedQuery`)
 *   is costed by its listed copy, which is what runs (issue 28, item 2: a batch of hashes was
 *   charged nothing), and an automatic persisted query's hash by the text this process holds for it
 *   (common/graphql/persisted-queries.ts: it was charged on its own as it ran, after the batch's
 *   other operations had started, so a batch over the budget ran in part). Alone, such a hash is
 *   charged by the plugin once Apollo has found its text; so is one of a batch whose text arrived
 *   between the batch's charge and its run.
 * - a subscription: once, when it starts (graphql-ws `subscribe`, subscriptions.ts); its events are
 *   not charged.
 *
 * The counters are http/points-store.ts's: Redis shared by every process, memory while it is away.
 * Request counting (RATE_LIMIT_MAX, http/rate-limit.ts) goes on underneath as a flood guard: it
 * counts every request before any credential is looked up, which a cost cannot do.
 */
import crypto from 'node:crypto';
import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import type { FastifyRequest } from 'fastify';
import {
  GraphQLError,
  getOperationAST,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values';
import type { Config } from '../config';
import { QueryTooComplexError, RateLimitedError } from '../errors/app-error';
import { rateLimitSubject } from '../http/rate-limit';
import type { PointsStore } from '../http/points-store';
import type { Caller } from '../modules/auth/api-key.service';
import type { BatchCharge, GraphQLContext } from '../modules/context';
import { formatError } from './errors';
import type { GraphQLLimits } from './limits';
import { operationRefusal } from './operation-access';
import { variablesError } from './well-formed';
import { overHttpRefusal } from './over-http';

/** What every answer reports in `extensions.cost`. */
export interface CostStatus {
  /** The cost of this operation, in points (what it was charged, or would have been). */
  requested: number;
  /** The caller's budget per window. */
  limit: number;
  /** Points left in the current window. */
  remaining: number;
  /** Seconds until the window ends and the budget is whole again. */
  resetSeconds: number;
}

export type { BatchCharge };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the cost budget's batch preHandler: the batch was charged as a whole. */
    batchCostCharge: BatchCharge | null;
  }
}

/** Points an operation of cost `cost` is charged: whole points, at least 1 (nothing is free). */
export function pointsFor(cost: number): number {
  return Math.max(1, Math.ceil(cost));
}

export interface CostBudget {
  /** The budget of a caller: the largest of RATE_LIMIT_COST_BUDGET and its scopes' budgets. */
  budgetOf(caller: Caller | null): number;
  /** Charges `points` if they fit; the status, and the refusal (429) when they did not. */
  charge(
    caller: Caller | null,
    address: string,
    points: number,
  ): Promise<{ status: CostStatus; refused: RateLimitedError | QueryTooComplexError | null }>;
  /** The Apollo plugin charging single operations and reporting `extensions.cost` (see above). */
  plugin: ApolloServerPlugin<GraphQLContext>;
  /** The /graphql preHandler charging a batch as a whole. */
  chargeBatch(request: FastifyRequest, reply: { header(name: string, value: unknown): unknown }): Promise<void>;
}

/** Whether a refusal passes once the window resets (a 429): more than the whole budget never does. */
const retryable = (refused: RateLimitedError | QueryTooComplexError): boolean => refused instanceof RateLimitedError;

/** The RateLimit-* headers (IETF draft, as the request limit sends them) and Retry-After when refused. */
function costHeaders(status: CostStatus, refused: boolean): [string, string][] {
  const headers: [string, string][] = [
    ['ratelimit-limit', String(status.limit)],
    ['ratelimit-remaining', String(status.remaining)],
    ['ratelimit-reset', String(status.resetSeconds)],
  ];
  if (refused) headers.push(['retry-after', String(status.resetSeconds)]);
  return headers;
}

/**
 * Whether execution will refuse the operation's variables (a wrong type, a missing non-null one):
 * Apollo answers that 400 without running anything, so it is not charged.
 */
function variablesRefused(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): boolean {
  if (!operation.variableDefinitions?.length) return false;
  return getVariableValues(schema, operation.variableDefinitions, variables, { maxErrors: 1 }).errors !== undefined;
}

/** What costs an operation of a batch: the limits' cost model, the schema, and the trusted list. */
interface Costing {
  limits: GraphQLLimits;
  schema: GraphQLSchema;
  /** The trusted document an operation of a batch names, if any (TrustedDocuments.listedDocument). */
  listedDocument: (operation: unknown) => DocumentNode | null;
  /** What else refuses an operation before it runs: GRAPHQL_MAX_INPUT_DEPTH, GRAPHQL_INTROSPECTION. */
  checks: BatchChecks;
}

/** The settings of the checks Apollo's pipeline runs besides the limits (src/graphql/apollo.ts). */
export interface BatchChecks {
  /** GRAPHQL_MAX_INPUT_DEPTH: variables nested deeper are refused (well-formed.ts). */
  inputDepth: number;
  /** GRAPHQL_INTROSPECTION: when off, Apollo's validation refuses `__schema` and `__type`. */
  introspection: boolean;
}

/** An operation's automatic persisted query extension, as sent (unchecked). */
function persistedQueryOf(extensions: unknown): { version?: unknown; sha256Hash?: unknown } | undefined {
  return (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
}

/**
 * Whether Apollo refuses an operation for its automatic persisted query extension before it runs: a
 * version other than 1, or a hash that is not the sha256 of the text sent with it (400).
 */
function persistedQueryRefused(query: string, extensions: unknown): boolean {
  const pq = persistedQueryOf(extensions);
  if (!pq) return false;
  return pq.version !== 1 || pq.sha256Hash !== crypto.hash('sha256', query, 'hex');
}

/**
 * An operation of a batch named by an automatic persisted query's hash alone, with the text this
 * process holds for it (what Apollo will run), its hash noted in `persisted`; any other as it is.
 */
function withPersistedText(
  piece: unknown,
  persistedText: (hash: string) => string | undefined,
  persisted: Set<string>,
): unknown {
  if (typeof piece !== 'object' || piece === null) return piece;
  const { query, extensions } = piece as Record<string, unknown>;
  if (query !== undefined) return piece;
  const pq = persistedQueryOf(extensions);
  if (pq?.version !== 1 || typeof pq.sha256Hash !== 'string') return piece;
  const text = persistedText(pq.sha256Hash);
  if (text === undefined) return piece;
  persisted.add(pq.sha256Hash);
  return { ...piece, query: text };
}

/** Points of one operation of a batch that will run; 0 when a check will refuse it before it runs. */
function batchOperationPoints(
  piece: unknown,
  caller: Caller | null,
  { limits, schema, listedDocument, checks }: Costing,
): number {
  if (typeof piece !== 'object' || piece === null) return 0;
  const { query, variables, operationName, extensions } = piece as Record<string, unknown>;
  // A listed document runs as listed, exempt from the cost limit (but not from the budget).
  const listed = listedDocument(piece);
  let document: DocumentNode;
  if (listed) document = listed;
  // A hash whose text this process did not hold when the batch was charged (withPersistedText): the
  // plugin charges it if Apollo finds its text as it runs; otherwise PersistedQueryNotFound, nothing runs.
  else if (typeof query !== 'string') return 0;
  else if (persistedQueryRefused(query, extensions)) return 0;
  else {
    try {
      document = parse(query, limits.parseOptions);
    } catch {
      return 0; // Apollo answers the syntax error; nothing runs
    }
  }
  const vars = typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : {};
  const name = typeof operationName === 'string' ? operationName : null;
  const operation = getOperationAST(document, name);
  if (!operation) return 0;
  // Validation (graphql-js's rules, the depth, aliases and directives limits, and without
  // introspection Apollo's rule refusing it, as Apollo runs them) refuses before anything runs. A
  // listed document was validated when the list was read.
  const rules = [
    ...specifiedRules,
    ...limits.validationRules,
    ...(checks.introspection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
  if (!listed && validate(schema, document, rules, { maxErrors: 1 }).length) return 0;
  // Then Apollo's request steps, in their order (apollo.ts): each refuses the operation before it
  // runs, so it is not charged (they were, while the answer said `requested: 0`).
  if (variablesError(vars, checks.inputDepth)) return 0;
  if (!listed && limits.costError(schema, document, vars)) return 0;
  if (overHttpRefusal(operation)) return 0;
  if (operationRefusal(schema, document, operation, caller, vars)) return 0;
  if (variablesRefused(schema, operation, vars)) return 0;
  return pointsFor(limits.operationCost(schema, document, vars, name));
}

/**
 * The Apollo plugin: charges a single operation once every check passed, before it runs (its 429
 * answer replaces execution when refused), and reports `extensions.cost` and RateLimit-* on every answer.
 */
function costPlugin(limits: GraphQLLimits, charge: CostBudget['charge']): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart(rc) {
      let status: CostStatus | null = null;
      const { contextValue } = rc;
      const address = contextValue.clientAddress ?? '';
      return {
        async responseForOperation(rc): Promise<GraphQLResponse | null> {
          // No operation of that name (or several and no name): Apollo still calls this hook, then
          // execution answers 400 BAD_REQUEST without running anything, so nothing is charged (it
          // read `rc.operation.variableDefinitions` here and answered 500 INTERNAL).
          if (!rc.operation) return null;
          // Variables execution will refuse: nothing runs, nothing is charged (willSendResponse reports 0).
          if (variablesRefused(rc.schema, rc.operation, rc.request.variables ?? {})) return null;
          const points = pointsFor(
            limits.operationCost(rc.schema, rc.document, rc.request.variables ?? {}, rc.operationName),
          );
          const batch = contextValue.batchCostCharge;
          // Charged with the batch, unless it is a persisted query's hash the batch's charge had no text for.
          const persistedHit = rc.metrics.persistedQueryHit && !batch?.persisted.has(rc.queryHash ?? '');
          if (batch && !persistedHit) {
            status = { requested: points, ...batch };
            return null;
          }
          const charged = await charge(contextValue.caller, address, points);
          status = charged.status;
          if (!charged.refused) return null;
          const error = new GraphQLError(charged.refused.message, { originalError: charged.refused });
          return {
            http: {
              status: charged.refused.status,
              headers: new HeaderMap(costHeaders(status, retryable(charged.refused))),
            },
            body: {
              kind: 'single',
              singleResult: { errors: [formatError({ message: error.message }, error)] },
            },
          };
        },
        async willSendResponse(rc) {
          // An answer that charged nothing (a syntax or validation error, a refused scope) still says
          // where the caller stands: a charge of 0 points reads the window without changing it.
          if (!status) {
            const batch = contextValue.batchCostCharge;
            status = batch
              ? { requested: 0, ...batch }
              : { ...(await charge(contextValue.caller, address, 0)).status, requested: 0 };
          }
          for (const [name, value] of costHeaders(status, false)) rc.response.http.headers.set(name, value);
          if (rc.response.body.kind === 'single') {
            const result = rc.response.body.singleResult;
            result.extensions = { ...result.extensions, cost: { ...status } };
          }
        },
      };
    },
  };
}

export function createCostBudget(
  settings: NonNullable<Config['rateLimit']['costBudget']>,
  windowMs: number,
  store: PointsStore,
  limits: GraphQLLimits,
  schema: GraphQLSchema,
  /** The trusted document an operation of a batch names, if any (TrustedDocuments.listedDocument). */
  listedDocument: (operation: unknown) => DocumentNode | null,
  checks: BatchChecks,
  /** The text of an automatic persisted query this process holds, by hash (persisted-queries.ts). */
  persistedText: (hash: string) => string | undefined = () => undefined,
): CostBudget {
  const budgetOf = (caller: Caller | null): number => {
    let budget = settings.points;
    for (const scope of caller?.scopes ?? []) budget = Math.max(budget, settings.byScope[scope] ?? 0);
    return budget;
  };
  const windowSeconds = Math.ceil(windowMs / 1000);

  const charge: CostBudget['charge'] = async (caller, address, points) => {
    const limit = budgetOf(caller);
    const result = await store.charge(rateLimitSubject(caller, address), points, limit);
    const status: CostStatus = {
      requested: points,
      limit,
      remaining: Math.max(0, limit - result.spent),
      resetSeconds: Math.max(1, Math.ceil(result.resetMs / 1000)),
    };
    // More than the whole budget fits in no window (a trusted document is exempt from the cost
    // limit, and a batch is charged its sum): a 429 would have the client retry for ever.
    const refused = result.allowed
      ? null
      : points > limit
        ? new QueryTooComplexError(
            'cost budget',
            `Query too complex (cost budget): this request costs ${points} points, more than the whole budget of ` +
              `${limit} points per ${windowSeconds} s; nothing was run; ask for less (smaller pages, fewer operations)`,
          )
        : new RateLimitedError(
            `Cost budget of ${limit} points per ${windowSeconds} s exceeded: this request costs ${points} points and ` +
              `${status.remaining} are left; nothing was run; retry in ${status.resetSeconds} seconds`,
          );
    return { status, refused };
  };
  const costing: Costing = { limits, schema, listedDocument, checks };

  return {
    budgetOf,
    charge,
    plugin: costPlugin(limits, charge),
    async chargeBatch(request, reply) {
      const body = request.body;
      if (!Array.isArray(body)) return;
      const persisted = new Set<string>();
      const points = body.reduce<number>(
        (sum, piece) =>
          sum + batchOperationPoints(withPersistedText(piece, persistedText, persisted), request.caller, costing),
        0,
      );
      const { status, refused } = await charge(request.caller, request.ip, points);
      request.batchCostCharge = {
        limit: status.limit,
        remaining: status.remaining,
        resetSeconds: status.resetSeconds,
        persisted,
      };
      if (refused) {
        for (const [name, value] of costHeaders(status, retryable(refused))) reply.header(name, value);
        throw refused;
      }
    },
  };
}
