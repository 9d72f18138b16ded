/**
 * GraphQL spans. graphql-jit executes without graphql-js's `execute`, so
 * @opentelemetry/instrumentation-graphql would see nothing; the operation span is made here instead:
 *
 * - `traceGraphQLHandler` wraps the /graphql route handler in an active span, so that everything the
 *   operation does (resolvers, DataLoader batches, SQL statements) becomes its child. An Apollo
 *   plugin cannot do that part: its hooks are called, not wrapped around the execution, so a span
 *   started in one would not be the active parent of what runs after it.
 * - `graphqlTracingPlugin` (Apollo plugin) names that span once Apollo knows the operation
 *   (`query PetById`), with the OpenTelemetry semantic-convention attributes
 *   `graphql.operation.name` / `graphql.operation.type`, the document's SHA-256 (`graphql.document.hash`,
 *   Apollo's query hash, the same as an APQ hash) and the error codes of the response.
 * - `traceResolvers` (GRAPHQL_RESOLVER_SPANS=true): a span per field resolver call. Off by default: a
 *   50-pet page resolves hundreds of fields, each span costs a few microseconds and bytes to export.
 */
import { boundedName } from '../http/request-log';
import type { ApolloServerPlugin } from '@apollo/server';
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { GraphQLObjectType, type GraphQLSchema, type ResponsePath } from 'graphql';
import type { GraphQLContext } from '../modules/context';
import { tracer } from '../telemetry/tracing';

/** The spans made by `traceGraphQLHandler`, so the plugin names only those. */
const operationSpans = new WeakSet<Span>();

/** Wraps a route handler: the request runs inside an active `graphql` span, ended when it is answered. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function traceGraphQLHandler<H extends (this: any, ...args: any[]) => unknown>(handler: H): H {
  return async function traced(this: unknown, ...args: unknown[]) {
    return tracer().startActiveSpan('graphql', async (span) => {
      operationSpans.add(span);
      try {
        return await handler.apply(this, args);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  } as H;
}

export function graphqlTracingPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      const span = trace.getActiveSpan();
      if (!span || !operationSpans.has(span)) return;
      return {
        async didResolveSource(rc) {
          span.setAttribute('graphql.document.hash', rc.queryHash);
        },
        async didResolveOperation(rc) {
          const type = rc.operation?.operation ?? 'unknown';
          // A client chooses the name, at any length: span names and attributes stay bounded.
          const name = rc.operationName ? boundedName(rc.operationName) : null;
          span.updateName(name ? `${type} ${name}` : type);
          span.setAttribute('graphql.operation.type', type);
          if (name) span.setAttribute('graphql.operation.name', name);
        },
        async willSendResponse(rc) {
          const body = rc.response.body;
          const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
          if (!errors?.length) return;
          const codes = [...new Set(errors.map((e) => String(e.extensions?.code ?? 'UNKNOWN')))];
          span.setAttribute('graphql.error.codes', codes);
          span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(',') });
        },
      };
    },
  };
}

function pathOf(path: ResponsePath | undefined): string {
  const parts: (string | number)[] = [];
  for (let p = path; p; p = p.prev) parts.push(p.key);
  return parts.reverse().join('.');
}

/** Replaces every field resolver of `schema` by one that runs inside a span `resolve Type.field`. */
export function traceResolvers(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      const name = `resolve ${type.name}.${field.name}`;
      field.resolve = (source, args, ctx, info) =>
        tracer().startActiveSpan(name, { attributes: { 'graphql.field.path': pathOf(info.path) } }, (span) => {
          const fail = (error: unknown) => {
            span.recordException(error as Error);
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            throw error;
          };
          try {
            const result = resolve(source, args, ctx, info);
            if (result && typeof (result as Promise<unknown>).then === 'function') {
              return (result as Promise<unknown>).then((value) => {
                span.end();
                return value;
              }, fail);
            }
            span.end();
            return result;
          } catch (error) {
            return fail(error);
          }
        });
    }
  }
}
