/**
 * Executes operations with graphql-jit behind Apollo's gateway interface (issue 6): each operation
 * is compiled to JavaScript once, on its first request, and the compiled function is kept in a
 * bounded LRU, so later requests skip graphql-js's per-field interpretation. Apollo still does
 * everything before execution (parsing, validation, the limits of limits.ts, error formatting);
 * only `execute` is replaced.
 *
 * Two places where graphql-jit differs from graphql-js are taken out of its hands, so that clients
 * see exactly what graphql-js gives them:
 *
 * - Variables. graphql-jit compiles its own variable coercion and treats any scalar *named* `ID` as
 *   the built-in one (strings pass through), which would bypass the int64 `ID` of scalars.ts: a
 *   malformed id would reach a resolver, and a valid one would arrive as a string instead of a
 *   bigint. Variables are therefore coerced by graphql-js's `getVariableValues` (the same call, the
 *   same errors and the same 400 VALIDATION_FAILED as `execute`), and the document graphql-jit
 *   compiles declares every variable with a pass-through scalar, so it takes the coerced values as
 *   they are.
 * - Literal arguments. graphql-jit coerces literals at compile time and writes them into the
 *   generated code as JSON, which cannot hold a bigint (`pet(id: "12")`) and would turn any other
 *   non-JSON value into something else. Every literal field argument is moved into a variable of
 *   the compiled document instead, and its value is computed per request with graphql-js's
 *   `valueFromAST`, which is what `execute` does for it.
 *
 * Output needs nothing: graphql-jit serialises every leaf with its type's own `serialize` (it
 * special-cases built-in names only for input), so ids leave as strings of all their digits.
 *
 * - `@skip` and `@include`. graphql-jit decides them inside its generated code, and gets it wrong
 *   where a response key has a skipped and an included field node: the selections a fragment brings
 *   below the skipped node do not inherit its condition (`category { id } category @skip(if: true)
 *   { ... { name } }` answers `name`), a named fragment's fields share one condition across all its
 *   uses, and every resolver's `info.fieldNodes` still holds the skipped nodes, so the read compiler
 *   (src/read) could not tell which ones execute. graphql-jit therefore never sees either
 *   directive: per request, the value of every `@skip`/`@include` of the operation is computed as
 *   graphql-js computes it (`getDirectiveValues` over the coerced variables), and the operation is
 *   compiled once per combination of those values, with the excluded selections removed and the
 *   directives dropped (at most MAX_VARIANTS combinations per operation; graphql-js runs the rest).
 *
 * A third difference is the schema's to respect: graphql-jit reads a field that has no resolver as a
 * plain property, where graphql-js's default resolver would call a function found there. A field whose
 * value is computed on demand needs a resolver of its own (`totalCount`, src/common/graphql/connection.ts).
 *
 * Whatever graphql-jit cannot compile runs through graphql-js `execute`, remembered per operation so
 * that the attempt is not repeated (and logged once, at debug level).
 */
import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import {
  BREAK,
  execute,
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getVariableValues,
  GraphQLError,
  GraphQLScalarType,
  GraphQLSchema,
  Kind,
  printSchema,
  TypeInfo,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type DefinitionNode,
  type ASTNode,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLInputType,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionNode,
  type TypeNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { GraphQLContext } from '../modules/context';

type GatewayInterface = ApolloServerOptionsWithGateway<GraphQLContext>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;
type GatewayRequestContext = Parameters<GatewayExecutor>[0];
type SchemaCallback = Parameters<GatewayInterface['onSchemaLoadOrUpdate']>[0];

/**
 * Compilations kept, over all operations: each `@skip`/`@include` variant of an operation counts as
 * one (MAX_VARIANTS below). The benchmark's W2 query compiled takes about 35 kB of heap besides its
 * document, so the cache stays under ~20 MB for such operations.
 */
export const JIT_CACHE_SIZE = 500;

/**
 * The type graphql-jit sees for every variable: its values were coerced by graphql-js already, so
 * its `parseValue` hands them through (graphql-jit calls it for every scalar not named like a
 * built-in one). The name must not be one of the schema's.
 */
const PRE_COERCED = new GraphQLScalarType({
  name: 'JitPreCoercedValue',
  description: 'Internal to the executor: a variable value already coerced by graphql-js.',
  parseValue: (value) => value,
  parseLiteral: () => {
    throw new TypeError('JitPreCoercedValue has no literals');
  },
  serialize: (value) => value,
});

/**
 * A field argument written as a literal, moved into a variable of the compiled document. One with
 * no variable inside whose value is a primitive (an id's bigint, a number, a string, an enum, null)
 * is the same on every request: `fixed` holds it, computed once when the operation is compiled.
 */
interface HoistedLiteral {
  variable: string;
  value: ValueNode;
  type: GraphQLInputType;
  fixed?: { value: unknown };
}

export type CacheEntry =
  { kind: 'jit'; query: CompiledQuery['query']; literals: HoistedLiteral[] } | { kind: 'graphql-js'; reason: string };

/** A selection carrying `@skip` or `@include`. */
type ConditionedNode = FieldNode | InlineFragmentNode | FragmentSpreadNode;

/** One `@skip` or `@include` of a selection, its `if` as written: a literal or a variable's name. */
interface Condition {
  skip: boolean;
  literal?: boolean;
  variable?: string;
}

/**
 * An operation's compilations: one per combination of the values of its `@skip`/`@include`
 * directives (`conditioned`, in document order), keyed by those values ('' when it has none).
 * `conditions` holds each conditioned selection's directives as written, so that a request reads
 * their values without graphql-js's `getDirectiveValues` (a fifth of a one-row lookup's executor
 * time in a CPU profile); where every one is a literal, `fixed` is the one combination there is.
 */
interface OperationEntry {
  conditioned: ConditionedNode[];
  conditions: Condition[][];
  fixed?: { key: string; excluded: ReadonlySet<ASTNode> };
  variants: Map<string, CacheEntry>;
}

/**
 * Combinations of `@skip`/`@include` values compiled per operation. A client that sends more (an
 * operation with many independent conditions, each request another combination) is executed by
 * graphql-js beyond that, rather than compiling without bound.
 */
export const MAX_VARIANTS = 16;

/**
 * The gateway handed to `new ApolloServer({ gateway })`. Its schema never changes, so
 * `onSchemaLoadOrUpdate` reports it once, on `load`.
 */
export class JitGateway implements GatewayInterface {
  /**
   * Keyed by the operation's AST node. Apollo keeps parsed and validated documents by query hash, so
   * the same query text brings back the same DocumentNode (and so the same operation node); the
   * node stands for both the document and the operation name, so another operation of the same
   * document can never be served this one's compiled code.
   */
  private readonly cache = new LRUCache<OperationDefinitionNode, OperationEntry>({
    // Every compilation counts, each variant of an operation too: counting operations alone let
    // MAX_VARIANTS times as many compilations stay (one client, ~16 x 500 of them, hundreds of MB).
    maxSize: JIT_CACHE_SIZE,
    sizeCalculation: (entry) => Math.max(1, entry.variants.size),
  });
  private readonly jitSchema: GraphQLSchema;
  private readonly listeners = new Set<SchemaCallback>();

  constructor(private readonly schema: GraphQLSchema) {
    if (schema.getType(PRE_COERCED.name))
      throw new Error(`the schema must not define a type named ${PRE_COERCED.name}`);
    // The same type objects (and so the same resolvers), plus the pass-through scalar.
    const config = schema.toConfig();
    this.jitSchema = new GraphQLSchema({ ...config, types: [...config.types, PRE_COERCED] });
  }

  onSchemaLoadOrUpdate(callback: SchemaCallback): () => void {
    this.listeners.add(callback);
    return () => this.listeners.delete(callback);
  }

  async load(): ReturnType<GatewayInterface['load']> {
    const schemaContext = { apiSchema: this.schema, coreSupergraphSdl: printSchema(this.schema) };
    for (const listener of this.listeners) listener(schemaContext);
    return { executor: (requestContext) => this.execute(requestContext) };
  }

  async stop(): Promise<void> {
    this.cache.clear();
  }

  private async execute(rc: GatewayRequestContext): Promise<ExecutionResult> {
    // Apollo resolves the operation before executing; without one (an unknown or missing operation
    // name), graphql-js produces the error Apollo expects.
    const operation = rc.operation as OperationDefinitionNode | undefined;
    if (!operation) return this.executeWithGraphqlJs(rc);
    let operationEntry = this.cache.get(operation);
    if (!operationEntry) {
      operationEntry = operationEntryOf(rc.document, operation);
      this.cache.set(operation, operationEntry);
    }
    const { conditioned, conditions, fixed, variants } = operationEntry;
    let excluded: ReadonlySet<ASTNode> | undefined;
    let key = '';
    let variables: Record<string, unknown> | undefined;
    if (fixed) {
      ({ key, excluded } = fixed);
    } else if (conditioned.length) {
      // As graphql-js `execute` does it (the same call and error limit), so the errors are its own.
      const coercion = this.coerce(operation, rc);
      if (coercion.errors) return { errors: coercion.errors };
      variables = coercion.coerced as Record<string, unknown>;
      const skipped = new Set<ASTNode>();
      for (let i = 0; i < conditioned.length; i++) {
        const node = conditioned[i]!;
        const included = decide(conditions[i]!, variables) ?? shouldInclude(node, variables);
        // A null `if` (a nullable variable with a default, sent null): graphql-js reports it where
        // it collects that selection (a field error below, or no data at the root); let it.
        if (included === undefined) return this.executeWithGraphqlJs(rc);
        key += included ? '1' : '0';
        if (!included) skipped.add(node);
      }
      excluded = skipped;
    }
    let entry = variants.get(key);
    if (!entry) {
      if (variants.size >= MAX_VARIANTS) return this.executeWithGraphqlJs(rc);
      entry = this.compile(rc.document, operation, excluded);
      variants.set(key, entry);
      // Set again as a new object, so the LRU counts the new variant (it sizes an entry when set)
      // and drops the least recently used compilations beyond the bound.
      this.cache.set(operation, { ...operationEntry, variants });
      if (entry.kind === 'graphql-js') {
        (rc.context as GraphQLContext).log.debug(
          { operationName: rc.operationName, reason: entry.reason },
          'graphql-jit cannot compile the operation; graphql-js executes it',
        );
      }
    }
    if (entry.kind === 'graphql-js') return this.executeWithGraphqlJs(rc);

    if (!variables) {
      const coercion = this.coerce(operation, rc);
      if (coercion.errors) return { errors: coercion.errors };
      variables = coercion.coerced as Record<string, unknown>;
    }
    for (const literal of entry.literals) {
      if (literal.fixed) {
        variables[literal.variable] = literal.fixed.value;
        continue;
      }
      const value = valueFromAST(literal.value, literal.type, variables);
      // graphql-js answers this (a literal made invalid by a variable inside it) with a field
      // error of its own; let it.
      if (value === undefined) return this.executeWithGraphqlJs(rc);
      variables[literal.variable] = value;
    }
    const result = await entry.query(undefined, rc.context, variables);
    return result.errors ? { ...result, errors: result.errors.map(asGraphqlJsError) } : result;
  }

  /** The request's variables coerced as graphql-js `execute` does (the same call and error limit). */
  private coerce(operation: OperationDefinitionNode, rc: GatewayRequestContext) {
    // What graphql-js gives for an operation that declares no variable, whatever the request sends.
    if (!operation.variableDefinitions?.length) return { coerced: {} as Record<string, unknown> };
    return getVariableValues(this.schema, operation.variableDefinitions ?? [], rc.request.variables ?? {}, {
      maxErrors: 50,
    });
  }

  private executeWithGraphqlJs(rc: GatewayRequestContext): Promise<ExecutionResult> | ExecutionResult {
    return execute({
      schema: this.schema,
      document: rc.document,
      contextValue: rc.context,
      variableValues: rc.request.variables,
      operationName: rc.request.operationName,
    });
  }

  /** Compiles one operation of a document; public only so tests can watch compilations. */
  /**
   * Compiles one operation of a document, without the selections in `excluded` (those a request's
   * `@skip`/`@include` values leave out); public only so tests can watch compilations.
   */
  compile(document: DocumentNode, operation: OperationDefinitionNode, excluded?: ReadonlySet<ASTNode>): CacheEntry {
    // Introspection must describe the public schema: graphql-jit would answer `__schema` from the
    // schema it compiles against, which holds the internal PRE_COERCED scalar (issue 11 item 4).
    if (selectsIntrospection(document, operation)) return { kind: 'graphql-js', reason: 'introspection' };
    // graphql-jit queues every root field of a mutation and runs them all, nulling `data` only
    // afterwards; graphql-js runs none after a field that failed and nulled the data (every Mutation
    // field is non-null), so a write after it would run unseen by the client.
    if (operation.operation === 'mutation' && rootResponseKeys(document, operation, excluded) > 1) {
      return { kind: 'graphql-js', reason: 'a mutation of several fields (graphql-js stops at the first that fails)' };
    }
    try {
      const { document: jitDocument, literals } = prepareForJit(this.schema, document, operation, excluded);
      const compiled = compileQuery(this.jitSchema, jitDocument, operation.name?.value);
      if (!isCompiledQuery(compiled)) {
        return { kind: 'graphql-js', reason: (compiled.errors ?? []).map((e) => e.message).join('; ') };
      }
      return { kind: 'jit', query: compiled.query, literals };
    } catch (error) {
      return { kind: 'graphql-js', reason: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** How many response keys the root selection of `operation` has, without the selections in `excluded`. */
function rootResponseKeys(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  excluded: ReadonlySet<ASTNode> | undefined,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const keys = new Set<string>();
  const walk = (selections: readonly SelectionNode[]) => {
    for (const s of selections) {
      if (excluded?.has(s)) continue;
      if (s.kind === Kind.FIELD) keys.add((s.alias ?? s.name).value);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections);
      else {
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet.selections);
      }
    }
  };
  walk(operation.selectionSet.selections);
  return keys.size;
}

/** An operation's entry before any compilation: its conditioned selections, read once. */
function operationEntryOf(document: DocumentNode, operation: OperationDefinitionNode): OperationEntry {
  const conditioned = conditionedSelections(document, operation);
  const conditions = conditioned.map((node) =>
    (node.directives ?? []).filter(isCondition).map((d): Condition => {
      const value = d.arguments?.find((a) => a.name.value === 'if')?.value;
      return {
        skip: d.name.value === 'skip',
        literal: value?.kind === Kind.BOOLEAN ? value.value : undefined,
        variable: value?.kind === Kind.VARIABLE ? value.name.value : undefined,
      };
    }),
  );
  const entry: OperationEntry = { conditioned, conditions, variants: new Map() };
  if (conditioned.length && conditions.every((c) => c.every((d) => d.literal !== undefined))) {
    let key = '';
    const excluded = new Set<ASTNode>();
    conditioned.forEach((node, i) => {
      const included = decide(conditions[i]!, {})!;
      key += included ? '1' : '0';
      if (!included) excluded.add(node);
    });
    entry.fixed = { key, excluded };
  }
  return entry;
}

/**
 * Whether a selection executes, from its conditions as written and the coerced variables, as
 * graphql-js decides it (`@skip` first, then `@include`); undefined where an `if` is not a boolean
 * (a variable absent or null, which graphql-js may answer with an error): shouldInclude decides those.
 */
function decide(conditions: Condition[], variables: Record<string, unknown>): boolean | undefined {
  let included = true;
  for (const { skip, literal, variable } of conditions) {
    const value =
      literal ?? (variable !== undefined && Object.hasOwn(variables, variable) ? variables[variable] : undefined);
    if (typeof value !== 'boolean') return undefined;
    if (value === skip) included = false;
  }
  return included;
}

/**
 * Whether a selection executes, as graphql-js's field collection decides it; undefined where
 * graphql-js's collection throws (an `if` that is null).
 */
function shouldInclude(node: ConditionedNode, variables: Record<string, unknown>): boolean | undefined {
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if === false) return false;
  } catch {
    return undefined;
  }
  return true;
}

const isCondition = (d: DirectiveNode) => d.name.value === 'skip' || d.name.value === 'include';

/**
 * The selections of the operation and the fragments it spreads that carry `@skip` or `@include`, in
 * document order. Not those of fragments only other operations of the document spread: their
 * conditions may name variables this operation does not declare.
 */
function conditionedSelections(document: DocumentNode, operation: OperationDefinitionNode): ConditionedNode[] {
  const found: ConditionedNode[] = [];
  const fragments = new Map<string, DefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const spread = new Set<DefinitionNode>();
  const reach = (node: ASTNode) =>
    visit(node, {
      FragmentSpread(s) {
        const fragment = fragments.get(s.name.value);
        if (fragment && !spread.has(fragment)) {
          spread.add(fragment);
          reach(fragment);
        }
      },
    });
  reach(operation);
  const definitions = document.definitions.filter((d) => d === operation || spread.has(d));
  const visitSelection = (node: ConditionedNode) => {
    if (node.directives?.some(isCondition)) found.push(node);
  };
  visit(
    { ...document, definitions },
    { Field: visitSelection, InlineFragment: visitSelection, FragmentSpread: visitSelection },
  );
  return found;
}

/**
 * The document graphql-jit compiles: the operation alone (with the fragments), without the
 * selections in `excluded` and without any `@skip`/`@include` (see the header), every variable
 * declared as PRE_COERCED without its default (graphql-js applied it), every literal field argument
 * moved into a new variable. Boolean variables keep their type (a `Boolean` variable may still be an
 * argument of a field).
 */
function prepareForJit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  excluded: ReadonlySet<ASTNode> = new Set(),
): { document: DocumentNode; literals: HoistedLiteral[] } {
  const taken = new Set((operation.variableDefinitions ?? []).map((d) => d.variable.name.value));
  const literals: HoistedLiteral[] = [];
  let counter = 0;
  const newVariable = (): string => {
    let name: string;
    do name = `jitLiteral${counter++}`;
    while (taken.has(name));
    taken.add(name);
    return name;
  };

  // An excluded selection is removed; an included one loses its conditions (true for this request).
  const decided = (node: ConditionedNode) => {
    if (excluded.has(node)) return null;
    if (!node.directives?.some(isCondition)) return undefined;
    return { ...node, directives: node.directives.filter((d) => !isCondition(d)) };
  };
  const typeInfo = new TypeInfo(schema);
  const definitions: DefinitionNode[] = document.definitions.filter(
    (d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION,
  );
  const rewritten = visit(
    { ...document, definitions },
    visitWithTypeInfo(typeInfo, {
      Field: { enter: (node) => decided(node) },
      InlineFragment: { enter: (node) => decided(node) },
      FragmentSpread: { enter: (node) => decided(node) },
      Argument(node) {
        // Directive arguments (@skip/@include) are graphql-jit's to read; only field arguments move.
        if (typeInfo.getDirective() || node.value.kind === Kind.VARIABLE) return undefined;
        const type = typeInfo.getInputType();
        if (!type) throw new Error(`no type for argument ${node.name.value}`);
        const variable = newVariable();
        literals.push({ variable, value: node.value, type, fixed: fixedValue(node.value, type) });
        return { ...node, value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: variable } } };
      },
    }),
  );

  const variableDefinition = (
    name: string,
    type: TypeNode = { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: PRE_COERCED.name } },
  ): VariableDefinitionNode => ({
    kind: Kind.VARIABLE_DEFINITION,
    variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } },
    type,
  });
  const declared = (operation.variableDefinitions ?? []).map((d) =>
    namedTypeOf(d.type) === 'Boolean' ? d : variableDefinition(d.variable.name.value),
  );
  const hoisted = literals.map((l) => variableDefinition(l.variable));
  return {
    document: {
      ...rewritten,
      definitions: rewritten.definitions.map((d) =>
        d.kind === Kind.OPERATION_DEFINITION ? { ...d, variableDefinitions: [...declared, ...hoisted] } : d,
      ),
    },
    literals,
  };
}

/**
 * A literal's value when it is the same on every request: no variable inside, and a primitive
 * (an object would be shared by requests, whose resolvers may change it).
 */
function fixedValue(node: ValueNode, type: GraphQLInputType): { value: unknown } | undefined {
  let variables = false;
  visit(node, {
    Variable() {
      variables = true;
      return BREAK;
    },
  });
  if (variables) return undefined;
  const value = valueFromAST(node, type);
  return value === undefined || (typeof value === 'object' && value !== null) ? undefined : { value };
}

/** Whether the operation (or a fragment of its document) selects `__schema` or `__type`. */
function selectsIntrospection(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let found = false;
  const definitions = document.definitions.filter((d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION);
  visit(
    { ...document, definitions },
    {
      Field(node) {
        if (node.name.value === '__schema' || node.name.value === '__type') {
          found = true;
          return BREAK;
        }
        return undefined;
      },
    },
  );
  return found;
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

/**
 * graphql-jit's errors are its own GraphQLError (no `extensions` object, no `nodes`), which Apollo's
 * error formatting cannot read. This builds what graphql-js's `locatedError` would: the resolver's
 * own GraphQLError when it carries a path already, else a GraphQLError with the same message, path,
 * locations and `originalError` (formatError finds the AppError through it).
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  const original = error.originalError;
  if (original instanceof GraphQLError && Array.isArray(original.path)) return original;
  const located = new GraphQLError(error.message, {
    path: error.path,
    originalError: original instanceof Error ? original : undefined,
    extensions: error.extensions,
  });
  (located as { locations?: GraphQLError['locations'] }).locations = error.locations;
  return located;
}
