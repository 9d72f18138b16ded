/**
 * The cache policy of a GraphQL operation (docs/caching.md), in Apollo's `@cacheControl` model
 * (`@apollo/cache-control-types`): each field has a hint (a max-age and a scope, PUBLIC or
 * PRIVATE); an operation takes the lowest max-age of the fields it selects and is PRIVATE when any
 * of them is.
 *
 * Two differences from Apollo's cache-control plugin, both on purpose:
 * - The policy is computed once per operation node, from the document alone, and kept beside it
 *   (Apollo's document store hands the same DocumentNode back for the same query text). Apollo's
 *   plugin hooks every resolved field to build it on every request: the per-field cost for which it
 *   was switched off (issue 6). A static walk sees every field written (through fragments, whatever
 *   `@skip`/`@include` say), so it can only be stricter than the per-request one.
 * - Unknown is PRIVATE: a type or field not listed in CACHE_HINTS below is never shared, so a new
 *   type is private until someone decides otherwise, and every field of the scope table that needs
 *   a scope is PRIVATE whatever the hints say.
 */
import type { GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { RequestStep } from '../common/graphql/request-steps';
import type { CacheHint, CacheScope } from '@apollo/cache-control-types';
import {
  getNamedType,
  isCompositeType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  isObjectType,
  isInterfaceType,
} from 'graphql';
import { SCOPE_TABLE } from '../common/scopes';
import type { GraphQLContext } from '../modules/context';

/**
 * The hints, in one place. A type's hint applies to every field returning it; a field's hint (by
 * schema coordinate) wins over its type's. Leaf fields (scalars, enums) take no hint of their own
 * unless listed. `maxAge` (seconds) lowers CACHE_PUBLIC_MAX_AGE_S and RESPONSE_CACHE_TTL_S for any
 * operation that selects the field; none is set today.
 */
export const CACHE_HINTS: { types: Record<string, CacheHint>; fields: Record<string, CacheHint> } = {
  types: {
    // The catalogue: the same for everyone, whoever asks.
    Pet: { scope: 'PUBLIC' },
    PetConnection: { scope: 'PUBLIC' },
    PetEdge: { scope: 'PUBLIC' },
    Category: { scope: 'PUBLIC' },
    CategoryConnection: { scope: 'PUBLIC' },
    CategoryEdge: { scope: 'PUBLIC' },
    InventoryItem: { scope: 'PUBLIC' },
    InventoryItemConnection: { scope: 'PUBLIC' },
    InventoryItemEdge: { scope: 'PUBLIC' },
    InventoryCount: { scope: 'PUBLIC' },
    PageInfo: { scope: 'PUBLIC' },
    // `node(nodeId:)`: an Order's id needs orders:read (refused anonymously, operation-access.ts), and
    // selecting Order's fields (`... on Order`) makes the operation PRIVATE through Order's own hint.
    Node: { scope: 'PUBLIC' },
    // Orders are a customer's business: never shared.
    Order: { scope: 'PRIVATE' },
    OrderConnection: { scope: 'PRIVATE' },
    OrderEdge: { scope: 'PRIVATE' },
  },
  fields: {
    // Federation's SDL is the schema's, public; `_entities` stays PRIVATE (unknown `_Entity`).
    'Query._service': { scope: 'PUBLIC' },
  },
};

/** An operation's policy: `maxAge` undefined when no hint sets one (the settings decide). */
export interface OperationCachePolicy {
  scope: CacheScope;
  maxAge?: number;
  /** Mutations and subscriptions: never cached, never stored. */
  write: boolean;
}

const GUARDED = new Set(
  Object.entries(SCOPE_TABLE)
    .filter(([, requirement]) => requirement !== 'public')
    .map(([coordinate]) => coordinate),
);

/** Restricts `policy` by `hint`: the lowest max-age, PRIVATE wins. */
function restrict(policy: OperationCachePolicy, hint: CacheHint | undefined): void {
  if (!hint) return;
  if (hint.scope === 'PRIVATE') policy.scope = 'PRIVATE';
  if (hint.maxAge !== undefined) policy.maxAge = Math.min(policy.maxAge ?? hint.maxAge, hint.maxAge);
}

/** The hint of a composite type: listed, introspection's own types (public), or PRIVATE. */
function typeHint(type: GraphQLCompositeType): CacheHint {
  if (type.name.startsWith('__')) return { scope: 'PUBLIC' };
  return CACHE_HINTS.types[type.name] ?? { scope: 'PRIVATE' };
}

/** Computes the policy of `operation` by walking every selection once (fragments once each). */
export function computeCachePolicy(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): OperationCachePolicy {
  const policy: OperationCachePolicy = { scope: 'PUBLIC', write: operation.operation !== 'query' };
  if (policy.write) return { ...policy, scope: 'PRIVATE' };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const visited = new Set<string>();
  const walk = (parent: GraphQLCompositeType, selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '__typename') continue;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        // Introspection's root fields describe the schema (public); anything else unknown: PRIVATE.
        if (!field) {
          if (name !== '__schema' && name !== '__type') policy.scope = 'PRIVATE';
          continue;
        }
        const coordinate = `${parent.name}.${name}`;
        if (GUARDED.has(coordinate)) policy.scope = 'PRIVATE';
        const named = getNamedType(field.type);
        const fieldHint = CACHE_HINTS.fields[coordinate];
        if (fieldHint) restrict(policy, fieldHint);
        else if (isCompositeType(named)) restrict(policy, typeHint(named));
        if (selection.selectionSet && isCompositeType(named)) walk(named, selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (on && isCompositeType(on)) {
          restrict(policy, typeHint(on));
          walk(on, selection.selectionSet);
        } else policy.scope = 'PRIVATE';
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments.get(name);
        const on = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && on && isCompositeType(on)) {
          restrict(policy, typeHint(on));
          walk(on, fragment.selectionSet);
        } else policy.scope = 'PRIVATE';
      }
    }
  };
  const root = schema.getQueryType();
  if (!root) return { ...policy, scope: 'PRIVATE' };
  walk(root, operation.selectionSet);
  return policy;
}

/** Policies kept beside their operation node: computed on a document's first request only. */
const policies = new WeakMap<OperationDefinitionNode, OperationCachePolicy>();

/** The policy of `operation`, computed once per operation node. */
export function cachePolicyOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): OperationCachePolicy {
  let policy = policies.get(operation);
  if (!policy) policies.set(operation, (policy = computeCachePolicy(schema, document, operation)));
  return policy;
}

/**
 * The header by which the cache-policy step tells the route's onSend hook (src/graphql/response-cache.ts)
 * what the answer may be: `public` or `public;<max-age>`, `private`, or `no-store`. Apollo's plugins
 * cannot reach Fastify's reply, its response headers can; the hook removes it before sending.
 */
export const CACHE_POLICY_HEADER = 'x-petstore-cache-policy';

export interface CachePolicyOptions {
  schema: GraphQLSchema;
  /**
   * Called once a mutation has run, before its answer is sent: the response cache drops every
   * entry (src/graphql/response-cache.ts). Awaited: the answer waits for the invalidation.
   */
  onWrite?: () => Promise<void>;
}

/**
 * A request step (src/common/graphql/request-steps.ts): marks each answer with what it may be
 * (CACHE_POLICY_HEADER) and invalidates the response cache after every mutation. An answer is
 * shareable only if it is a query's, with no errors, every field it selects is PUBLIC, and the
 * request carried no credentials (any Authorization header, valid or not, whatever kind of token:
 * identity may change what is seen).
 */
type WillSend = GraphQLRequestContextWillSendResponse<GraphQLContext>;

export function cachePolicyStep({ schema, onWrite }: CachePolicyOptions): RequestStep<GraphQLContext> {
  /** Marks the answer with what it may be. */
  const mark = (rc: WillSend, policy: OperationCachePolicy | undefined): void => {
    const body = rc.response.body;
    const ok =
      policy !== undefined &&
      !policy.write &&
      body.kind === 'single' &&
      !body.singleResult.errors &&
      (rc.response.http.status ?? 200) === 200;
    let value = 'no-store';
    if (ok) {
      const credentials = rc.request.http?.headers.get('authorization') !== undefined;
      value =
        credentials || policy!.scope === 'PRIVATE'
          ? 'private'
          : policy!.maxAge === undefined
            ? 'public'
            : `public;${policy!.maxAge}`;
    }
    rc.response.http.headers.set(CACHE_POLICY_HEADER, value);
  };
  return () => {
    let policy: OperationCachePolicy | undefined;
    return {
      didResolveOperation(rc) {
        if (rc.operation) policy = cachePolicyOf(schema, rc.document, rc.operation);
      },
      willSendResponse(rc) {
        // A mutation that ran (or began to): the cache is invalidated before its answer leaves,
        // errors or not (a partial write is a write). One refused before it ran (a missing key or
        // scope, a bad variable, the cost budget: an answer without `data`) wrote nothing, and
        // invalidates nothing: anyone could empty every process's cache with one anonymous request.
        const body = rc.response.body;
        const ran = body.kind !== 'single' || body.singleResult.data !== undefined;
        if (policy?.write && rc.operation?.operation === 'mutation' && ran && onWrite)
          return onWrite().then(() => mark(rc, policy));
        mark(rc, policy);
      },
    };
  };
}
