/**
 * The whole operation is checked against the scope table before anything runs (issue 10 item 7,
 * issue 11 item 1): every field its selection reaches, through fragments and inline fragments, is
 * looked up in SCOPE_TABLE (src/common/scopes.ts). If the caller may not use one of them, the
 * operation is refused as a whole with no `data`: 401 UNAUTHENTICATED (+ `WWW-Authenticate: Bearer`)
 * for an anonymous caller, 403 FORBIDDEN for a key without the scope. No resolver has run, so a
 * mutation is never half-done and a client may retry safely.
 *
 * Written by hand: the decision is this API's scope table; graphql-js gives the traversal (its
 * schema types), and the check is a walk over the selection sets with each fragment visited once.
 * Directives (`@skip`, `@include`) are not evaluated: a field is reached if it is written.
 */
import { HeaderMap } from '@apollo/server';
import { apolloError } from '../common/graphql/apollo-error';
import type { RequestStep, RequestStepListener } from '../common/graphql/request-steps';
import {
  getNamedType,
  isAbstractType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { decodeNodeId } from '../common/node-ids';
import { AppError, UnauthenticatedError } from '../errors/app-error';
import type { Caller } from '../modules/auth/api-key.service';
import { refusal } from '../modules/auth/authorize';
import { SCOPE_TABLE, type Operation } from '../common/scopes';
import type { GraphQLContext } from '../modules/context';
import { isEntityType, representationTypeNames } from '../schema/federation';
import { ENTITY_ACCESS } from '../read/entities';
import { variablesWithDefaults } from './limits';

const GUARDED = new Set<string>(Object.keys(SCOPE_TABLE));

/**
 * The schema coordinates (`Query.order`, `Pet.orders`) of the scope table that `operation` reaches.
 * Federation's `_entities` reaches the root field of every entity type that its representations name
 * (read from `variables` or the literal) or that its fragments select (`... on Order` reaches
 * `Query.order`), so an entity is refused exactly as reading it by id would be.
 */
export function guardedCoordinates(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> = {},
): string[] {
  return reachOf(schema, document, operation, variables).coordinates;
}

/** guardedCoordinates, and whether it read `variables` (an `_entities` field: its representations). */
function reachOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): { coordinates: string[]; readsVariables: boolean } {
  let readsVariables = false;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const found = new Set<string>();
  const visitedFragments = new Set<string>();
  const root = schema.getRootType(operation.operation);

  const reachEntity = (typeName: string | undefined): void => {
    const coordinate = isEntityType(typeName) ? ENTITY_ACCESS[typeName] : undefined;
    if (coordinate && GUARDED.has(coordinate)) found.add(coordinate);
  };
  const entitiesReach = (field: FieldNode): void => {
    readsVariables = true;
    const argument = field.arguments?.find((a) => a.name.value === 'representations');
    if (argument) {
      // Not coerced yet: whatever the client sent. `_Any` refuses what is not a representation.
      const value =
        argument.value.kind === Kind.VARIABLE
          ? variables[argument.value.name.value]
          : valueFromASTUntyped(argument.value, variables);
      for (const typeName of representationTypeNames(value)) reachEntity(typeName);
    }
    const seen = new Set<string>();
    const fragmentTypes = (selectionSet: SelectionSetNode | undefined): void => {
      for (const selection of selectionSet?.selections ?? []) {
        if (selection.kind === Kind.INLINE_FRAGMENT) {
          reachEntity(selection.typeCondition?.name.value);
          fragmentTypes(selection.selectionSet);
        } else if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          const fragment = fragments.get(selection.name.value);
          reachEntity(fragment?.typeCondition.name.value);
          fragmentTypes(fragment?.selectionSet);
        }
      }
    };
    fragmentTypes(field.selectionSet);
  };

  const walk = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '_entities' && parent === root) entitiesReach(selection);
        if (name.startsWith('__') || (isAbstractType(parent) && !isInterfaceType(parent))) continue;
        // A field of an interface is reached on every type that implements it.
        const owners = isInterfaceType(parent) ? [parent, ...schema.getPossibleTypes(parent)] : [parent];
        for (const owner of owners) {
          const coordinate = `${owner.name}.${name}`;
          if (GUARDED.has(coordinate)) found.add(coordinate);
        }
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
        const type = field && getNamedType(field.type);
        if (selection.selectionSet && type && (isObjectType(type) || isAbstractType(type)))
          walk(selection.selectionSet, type);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type && (isObjectType(type) || isAbstractType(type))) walk(selection.selectionSet, type);
      } else {
        const name = selection.name.value;
        if (visitedFragments.has(name)) continue;
        visitedFragments.add(name);
        const fragment = fragments.get(name);
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && type && (isObjectType(type) || isAbstractType(type))) walk(fragment.selectionSet, type);
      }
    }
  };
  if (root) walk(operation.selectionSet, root);
  return { coordinates: [...found], readsVariables };
}

/** The fields of the operation's own selection, through its fragments (each visited once). */
function rootFields(document: DocumentNode, operation: OperationDefinitionNode): FieldNode[] {
  const fields: FieldNode[] = [];
  const visited = new Set<string>();
  const walk = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = document.definitions.find(
          (d): d is FragmentDefinitionNode =>
            d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
        );
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return fields;
}

/** `Query.node`/`Query.nodes`: the root fields whose reach is the type their ids name. */
const NODE_FIELDS = new Set(['node', 'nodes']);

/**
 * The coordinates that the node ids given to `Query.node`/`Query.nodes` stand for: the ids are
 * decoded here, before execution, from literals and from the (not yet coerced) variables, since the
 * type of the object is known only from its id. Throws VALIDATION_FAILED for a malformed node id.
 */
function nodeCoordinates(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Operation[] {
  if (operation.operation !== 'query') return [];
  const found = new Set<Operation>();
  const idsOf = (value: ValueNode): unknown[] => {
    if (value.kind === Kind.VARIABLE) {
      const given = variables[value.name.value];
      return Array.isArray(given) ? given : [given];
    }
    if (value.kind === Kind.LIST) return value.values.flatMap(idsOf);
    if (value.kind === Kind.STRING) return [value.value];
    return [undefined]; // graphql-js's validation has refused any other literal already
  };
  for (const field of rootFields(document, operation)) {
    if (!NODE_FIELDS.has(field.name.value)) continue;
    for (const arg of field.arguments ?? []) {
      if (arg.name.value !== 'nodeId' && arg.name.value !== 'nodeIds') continue;
      for (const id of idsOf(arg.value)) {
        // Variables graphql-js will refuse while coercing them (a missing or non-string value) are its to report.
        if (typeof id !== 'string') continue;
        found.add(ENTITY_ACCESS[decodeNodeId(id).type]);
      }
    }
  }
  return [...found];
}

/**
 * The guarded coordinates of each operation that reaches the same ones whatever its variables, per
 * schema and operation node; null for one whose reach depends on them (`_entities`, `node`,
 * `nodes`: walked per request). Apollo keeps parsed documents by their text, so a document sent
 * again brings back the same node and is walked once, not per request: the walk was 2.2 % of a
 * `pet(id:)` read's server CPU (CPU profile, docs/benchmarks.md round 9), 3-11 µs a call. The coordinates are kept, never the decision: each
 * request's caller is checked against them.
 */
const staticReach = new WeakMap<GraphQLSchema, WeakMap<OperationDefinitionNode, readonly string[] | null>>();

function staticReachOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): readonly string[] | null {
  let bySchema = staticReach.get(schema);
  if (!bySchema) staticReach.set(schema, (bySchema = new WeakMap()));
  let reach = bySchema.get(operation);
  if (reach === undefined) {
    // Dependent on the variables: what the walk itself read of them (an `_entities` field), or a
    // node field, whose ids name the types (nodeCoordinates).
    const { coordinates, readsVariables } = reachOf(schema, document, operation, {});
    const names = readsVariables || rootFields(document, operation).some((f) => NODE_FIELDS.has(f.name.value));
    reach = names ? null : coordinates;
    bySchema.set(operation, reach);
  }
  return reach;
}

/**
 * Why the caller may not run `operation`, or null: the scope table over every field it reaches and
 * every node id it names, or VALIDATION_FAILED for a malformed node id. Nothing has run.
 */
export function operationRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  caller: Caller | null,
  sent: Record<string, unknown>,
): AppError | null {
  const reach = staticReachOf(schema, document, operation);
  if (reach) return refusal(caller, reach);
  // A variable left out is its default (issue 28, item 8): `_entities(representations: $r)` with
  // `$r = [{__typename: "Order", ...}]` reaches Query.order as if the list had been sent.
  const variables = variablesWithDefaults(document, sent, operation);
  let nodes: Operation[];
  try {
    nodes = nodeCoordinates(document, operation, variables);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  return refusal(caller, [...guardedCoordinates(schema, document, operation, variables), ...nodes]);
}

/** Throws the refusal of the operation (as Apollo expects it: a GraphQLError with its HTTP head). */
export function checkOperationAccess(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  caller: Caller | null,
  variables: Record<string, unknown> = {},
): void {
  const refused = operationRefusal(schema, document, operation, caller, variables);
  if (!refused) return;
  const headers = new HeaderMap();
  if (refused instanceof UnauthenticatedError) headers.set('www-authenticate', refused.challenge);
  throw apolloError(refused, headers);
}

const operationAccess: RequestStepListener<GraphQLContext> = {
  didResolveOperation(rc) {
    if (rc.operation)
      checkOperationAccess(rc.schema, rc.document, rc.operation, rc.contextValue.caller, rc.request.variables ?? {});
  },
};
/** Refuses what the caller may not run, before execution (src/common/graphql/request-steps.ts). */
export const operationAccessStep: RequestStep<GraphQLContext> = () => operationAccess;
