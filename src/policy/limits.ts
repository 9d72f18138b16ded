/**
 * Limits on what one GraphQL operation may ask for, each configuration (docs/keys-scopes-limits.md):
 *
 * - tokens: graphql-js's own `maxTokens` parse option (the graphql-armor max-tokens check, upstreamed
 *   into graphql-js); parsing stops at the limit, so a huge document costs no more than the limit.
 *   (graphql-armor's Apollo max-tokens plugin throws from a plugin hook, which Apollo answers 500.)
 * - depth, aliases, directives: graphql-armor validation rules.
 * - cost: graphql-armor's cost rule, run once the operation is known, on the document with the
 *   request's `first`/`last` variables written in and a page of DEFAULT_PAGE_SIZE assumed where a
 *   connection gives neither, so that `pets(first: $n)` and `pets` cost what they really fetch.
 *   Federation's `_entities(representations:)` counts as a page of as many objects as it is given.
 *   A variable the request does not send counts with its default value (`$n: Int = 100`), as graphql-js
 *   will execute it (issue 28, item 3): `variablesWithDefaults`.
 *
 * The cost model (graphql-armor's): a scalar field costs 1, an object field 2 plus 1.5 x the cost of
 * each selected child, and a field with `first`/`last` multiplies its subtree by that page size.
 * Example: `pets(first: 100) { nodes { id name category { name } } }` costs
 * (2 + 1.5 x (2 + 1.5 x (1 + 1 + (2 + 1.5 x 1)))) x 100 = 1,737.5. The default budget, 20,000, lets
 * any single page of 100 with its relations through (the W2 shape of the benchmark at 100 costs 5,806;
 * 20 categories with 20 pets each and their stock 13,758) and stops nested pages of pages.
 *
 * Every rejection is a QueryTooComplexError (QUERY_TOO_COMPLEX, 400) whose message names the limit.
 */
import { apolloError } from '../common/graphql/apollo-error';
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationContext,
  type ValidationRule,
  valueFromASTUntyped,
} from 'graphql';
import type { Config } from '../config';
import { QueryTooComplexError } from '../errors/app-error';
import { DEFAULT_PAGE_SIZE } from '../common/pagination';

type Limit = QueryTooComplexError['limit'];

/** The GraphQL error Apollo sends for a rejected operation; formatError reads `originalError`. */
export function tooComplex(limit: Limit, message: string): GraphQLError {
  return apolloError(new QueryTooComplexError(limit, `Query too complex (${limit} limit): ${message}`));
}

// graphql-armor prefixes its messages with "Syntax Error: ", which they are not.
const armorMessage = (error: GraphQLError) => error.message.replace(/^Syntax Error: /, '');

const reportAs =
  (limit: Limit) =>
  (ctx: ValidationContext | null, error: GraphQLError): void =>
    ctx?.reportError(tooComplex(limit, armorMessage(error)));

/** Depth, aliases and directives (graphql-armor), reporting through `reportAs` instead of throwing. */
function structureRules(limits: Config['limits']): ValidationRule[] {
  const off = { enabled: false } as const;
  return new ApolloArmor({
    blockFieldSuggestion: off, // formatErrorFor does this, for every error (errors.ts)
    maxTokens: off, // graphql-js parse option, see above
    // Fields are counted, not fragments: a read split into fragments (as Relay apps write them) is
    // as deep as the same read written out (a spread counted as two levels, an inline fragment one).
    maxDepth: { n: limits.depth, flattenFragments: true, onReject: [reportAs('depth')], propagateOnRejection: false },
    maxAliases: { n: limits.aliases, onReject: [reportAs('aliases')], propagateOnRejection: false },
    maxDirectives: { n: limits.directives, onReject: [reportAs('directives')], propagateOnRejection: false },
    costLimit: off, // operationCosts below
  }).protect().validationRules;
}

/**
 * The cost model's constants, handed to graphql-armor's cost rule (these are its defaults, stated so
 * that docs/cost-model.md is generated from them: scripts/cost-model-docs.ts).
 */
export const COST_MODEL = {
  /** A field without a selection set (a scalar or enum). */
  scalarCost: 1,
  /** A field with a selection set, before its children. */
  objectCost: 2,
  /** Each child's cost is multiplied by this, per level of nesting. */
  depthCostFactor: 1.5,
} as const;

/**
 * The cost of every operation of a document as written (page sizes already in it: withPageSizes),
 * by operation name ('' for an anonymous one). graphql-armor's rule computes it; it reports the
 * number only through `onAccept`, per operation, so the rule is wrapped to know which operation it
 * is visiting. THE one computation of cost: the cost limit and the cost budget both read it.
 */
function costsOf(schema: GraphQLSchema, document: DocumentNode): Map<string, number> {
  const costs = new Map<string, number>();
  let current = '';
  const rule = costLimitRule({
    ...COST_MODEL,
    maxCost: Number.POSITIVE_INFINITY,
    ignoreIntrospection: true,
    onAccept: [(_ctx, { n }) => costs.set(current, n)],
    propagateOnRejection: false,
  });
  const wrapped: ValidationRule = (context) => {
    const visitor = rule(context) as unknown as { OperationDefinition: { enter(node: OperationDefinitionNode): void } };
    return {
      OperationDefinition: {
        enter(node: OperationDefinitionNode) {
          current = node.name?.value ?? '';
          visitor.OperationDefinition.enter(node);
        },
      },
    };
  };
  validate(schema, document, [wrapped]);
  return costs;
}

/** How big a value makes a page: a number is its own size, a list its length. */
const sizeOf = (value: unknown): number =>
  typeof value === 'number' ? value : Array.isArray(value) ? value.length : value == null ? -1 : 0;

/**
 * The variables as execution will see them, before coercion: what the request sent, and for every
 * variable it did not send (absent, not null) the default value its definition declares, as graphql-js
 * uses it. Everything that decides from variables before execution (cost, scopes, node ids) reads
 * these, or a default would pass unchecked (`query($n: Int = 100)`, `$r: [_Any!]! = [{...}]`).
 * `operation`: the defaults of that operation only; without it, of every operation of the document,
 * the largest page where two declare one name differently (the costs are computed per document).
 */
export function variablesWithDefaults(
  document: DocumentNode,
  variables: Record<string, unknown>,
  operation?: OperationDefinitionNode,
): Record<string, unknown> {
  let filled: Record<string, unknown> | null = null;
  const operations = operation
    ? [operation]
    : document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  for (const op of operations) {
    for (const definition of op.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      if (!definition.defaultValue || variables[name] !== undefined) continue;
      const value: unknown = valueFromASTUntyped(definition.defaultValue);
      filled ??= { ...variables };
      if (!(name in filled) || sizeOf(value) > sizeOf(filled[name])) filled[name] = value;
    }
  }
  return filled ?? variables;
}

/**
 * The document as the cost rule should see it: `first`/`last` given as variables replaced by their
 * values, and `first: DEFAULT_PAGE_SIZE` added to fields that page but were given no size.
 */
export function withPageSizes(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  const intValue = (n: number) => ({ kind: Kind.INT, value: String(n) }) as const;
  const firstArgument = (n: number): ArgumentNode => ({
    kind: Kind.ARGUMENT,
    name: { kind: Kind.NAME, value: 'first' },
    value: intValue(n),
  });
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode): FieldNode | undefined {
        const def = typeInfo.getFieldDef();
        if (def?.name === '_entities' && typeInfo.getParentType() === schema.getQueryType()) {
          // Federation: N representations fetch N objects, like a page of N (src/schema/federation.ts).
          return {
            ...node,
            arguments: [...(node.arguments ?? []), firstArgument(representationCount(node, variables))],
          };
        }
        // `nodes(nodeIds:)` reads one object per id: it costs as a page of that many.
        const ids = node.arguments?.find((a) => a.name.value === 'nodeIds');
        if (ids && def?.args.some((a) => a.name === 'nodeIds')) {
          const given = ids.value.kind === Kind.VARIABLE ? variables[ids.value.name.value] : undefined;
          const n = ids.value.kind === Kind.LIST ? ids.value.values.length : Array.isArray(given) ? given.length : 1;
          const first = { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'first' }, value: intValue(n) } as const;
          return { ...node, arguments: [...(node.arguments ?? []), first] };
        }
        if (!def?.args.some((a) => a.name === 'first')) return undefined;
        // The page as pagination.ts reads it: `first`, else `last`, else the default page; a `null`
        // (literal or variable) is not given. One `first: <page>` replaces both, since the cost rule
        // reads whichever of `first`/`last` comes first, null or not (`pets(first: null, last: 100)`
        // fetched 100 and cost 1).
        const pageArgument = (name: 'first' | 'last'): number | null => {
          const value = node.arguments?.find((a) => a.name.value === name)?.value;
          if (!value) return null;
          const given: unknown =
            value.kind === Kind.VARIABLE
              ? variables[value.name.value]
              : value.kind === Kind.INT
                ? Number(value.value)
                : value.kind === Kind.NULL
                  ? null
                  : undefined;
          if (given == null) return null;
          return Number.isSafeInteger(given) ? (given as number) : DEFAULT_PAGE_SIZE;
        };
        const first = pageArgument('first');
        const last = pageArgument('last');
        const page = first === null && last === null ? DEFAULT_PAGE_SIZE : Math.max(first ?? last!, last ?? first!);
        const args = (node.arguments ?? []).filter((a) => a.name.value !== 'first' && a.name.value !== 'last');
        return { ...node, arguments: [...args, firstArgument(page)] };
      },
    }),
  );
}

export interface GraphQLLimits {
  /** Depth, aliases and directives: validation rules, run with graphql-js's own. */
  validationRules: ValidationRule[];
  /**
   * The cost verdict for a document and its variables (null: within budget). Apollo's operations
   * get it through `step`; subscriptions (src/subscriptions/subscriptions.ts) call it directly.
   */
  costError(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>): GraphQLError | null;
  /**
   * The cost of the operation `operationName` of a document (the only one when null), with its
   * variables' page sizes: what the cost limit compares with GRAPHQL_MAX_COST and what the cost
   * budget charges (src/policy/cost-budget.ts). 0 when the document has no such operation.
   */
  operationCost(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Record<string, unknown>,
    operationName?: string | null,
  ): number;
  parseOptions: { maxTokens: number };
  /** The cost check of Apollo's operations (src/common/graphql/request-steps.ts). */
  step: RequestStep<object>;
}

/** How many representations `_entities` is given (a list literal or a list variable; 1 otherwise). */
function representationCount(node: FieldNode, variables: Record<string, unknown>): number {
  const value = node.arguments?.find((a) => a.name.value === 'representations')?.value;
  if (value?.kind === Kind.LIST) return Math.max(1, value.values.length);
  const given = value?.kind === Kind.VARIABLE ? variables[value.name.value] : undefined;
  return Array.isArray(given) ? Math.max(1, given.length) : 1;
}

/**
 * The variables a document passes as `first`/`last`, `nodeIds` or `_entities(representations:)`:
 * the only inputs its cost depends on.
 */
function pageSizeVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(node) {
      const sized = ['first', 'last', 'nodeIds', 'representations'].includes(node.name.value);
      if (sized && node.value.kind === Kind.VARIABLE) names.add(node.value.name.value);
    },
  });
  return [...names];
}

/** Costs kept per document for this many distinct page sizes, then forgotten (memory bound). */
const COSTS_PER_DOCUMENT = 64;

interface DocumentCosts {
  pageVariables: string[];
  /** JSON of the page-size values -> the cost of each operation by name. */
  byPageSizes: Map<string, Map<string, number>>;
}

/**
 * `exempt`: documents the cost check of Apollo's plugin skips (the trusted documents of
 * src/policy/trusted-documents.ts; the operator vouched for them).
 */
export function createLimits(
  limits: Config['limits'],
  { exempt }: { exempt?: (document: DocumentNode) => boolean } = {},
): GraphQLLimits {
  // The cost of an operation depends only on its document and the values of its page-size variables.
  // Apollo hands back the same parsed DocumentNode for the same query text (its document cache), so
  // the costs are computed once per document and page sizes instead of on every request (a visit
  // and a validation pass, ~7% of the CPU of a small query before this cache, issue 6).
  const cache = new WeakMap<DocumentNode, DocumentCosts>();
  const costs = (schema: GraphQLSchema, document: DocumentNode, sent: Record<string, unknown>): Map<string, number> => {
    const variables = variablesWithDefaults(document, sent);
    let cached = cache.get(document);
    if (!cached) {
      cached = { pageVariables: pageSizeVariables(document), byPageSizes: new Map() };
      cache.set(document, cached);
    }
    // Variables are not coerced yet here: a value is whatever the client sent (a 1 MiB
    // string, say). withPageSizes counts anything but a safe integer as the default page,
    // so the key keeps only what it uses, and a remembered cost stays a few bytes.
    const key = cached.pageVariables
      .map((name) => {
        const value = variables[name];
        if (Array.isArray(value)) return `[${value.length}]`; // nodeIds, representations: only their number counts
        return Number.isSafeInteger(value) ? String(value) : '-';
      })
      .join(',');
    let found = cached.byPageSizes.get(key);
    if (found === undefined) {
      found = costsOf(schema, withPageSizes(schema, document, variables));
      if (cached.byPageSizes.size >= COSTS_PER_DOCUMENT) cached.byPageSizes.clear();
      cached.byPageSizes.set(key, found);
    }
    return found;
  };
  const costError = (
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Record<string, unknown>,
  ): GraphQLError | null => {
    for (const cost of costs(schema, document, variables).values()) {
      if (cost > limits.cost) return tooComplex('cost', `Query Cost limit of ${limits.cost} exceeded, found ${cost}.`);
    }
    return null;
  };
  const operationCost: GraphQLLimits['operationCost'] = (schema, document, variables, operationName) => {
    const all = costs(schema, document, variables);
    if (operationName) return all.get(operationName) ?? 0;
    return all.size === 1 ? [...all.values()][0]! : 0;
  };
  const costStep: RequestStepListener<object> = {
    didResolveOperation(rc) {
      if (exempt?.(rc.document)) return;
      const verdict = costError(rc.schema, rc.document, rc.request.variables ?? {});
      // A fresh error each time: Apollo writes into an error's HTTP extensions.
      if (verdict) throw apolloError(verdict.originalError as QueryTooComplexError);
    },
  };
  return {
    costError,
    operationCost,
    validationRules: structureRules(limits),
    parseOptions: { maxTokens: limits.tokens },
    step: () => costStep,
  };
}

// graphql-js spells it "more that N tokens"; accept a corrected spelling too.
const TOKEN_LIMIT = /Document contains more th\w+ (\d+) tokens/;

/** graphql-js's token-limit parse error, as the QUERY_TOO_COMPLEX error it stands for. */
export function tokenLimitError(message: string): QueryTooComplexError | null {
  const match = TOKEN_LIMIT.exec(message);
  return match
    ? new QueryTooComplexError(
        'tokens',
        `Query too complex (tokens limit): the document has more than ${match[1]} tokens`,
      )
    : null;
}
