/**
 * SQL spans on the embedded database. instrumentation-pg knows only node-postgres; PGlite runs
 * in-process behind `query`, `exec` and `transaction`, which the SQL reader and Prisma's PGlite
 * adapter both call. Wrapping those three methods of the one instance gives the same spans as on
 * PostgreSQL (`pg.query:SELECT pglite`, `db.query.text`, ...) and one span per transaction with its statements
 * as children. Installed only when tracing is on (main.ts).
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from './tracing';

const VERB = /^\s*(\w+)/;
/** The attributes instrumentation-pg gives its spans (stable database semantic conventions). */
const DB = { 'db.system.name': 'postgresql', 'db.namespace': 'pglite' };

/** A span for one statement; `parent`: the transaction's span, else the active one. */
function statementSpan<T>(sql: string, run: () => Promise<T>, parent?: Span): Promise<T> {
  const verb = VERB.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  return tracer().startActiveSpan(
    `pg.query:${verb} pglite`,
    { kind: SpanKind.CLIENT, attributes: { ...DB, 'db.query.text': sql } },
    parent ? trace.setSpan(context.active(), parent) : context.active(),
    (span) => ended(span, run),
  );
}

async function ended<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

function wrapQueries<Q extends Pick<PGlite, 'query' | 'exec'>>(target: Q, parent?: Span): void {
  const query = target.query.bind(target);
  const exec = target.exec.bind(target);
  target.query = ((sql: string, ...rest: unknown[]) =>
    statementSpan(sql, () => (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest), parent)) as Q['query'];
  target.exec = ((sql: string, ...rest: unknown[]) =>
    statementSpan(sql, () => (exec as (...a: unknown[]) => Promise<unknown>)(sql, ...rest), parent)) as Q['exec'];
}

export function tracePglite(pglite: PGlite): void {
  wrapQueries(pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    tracer().startActiveSpan('pg.transaction', { kind: SpanKind.CLIENT, attributes: DB }, (span) =>
      ended(span, () =>
        transaction((tx) => {
          // Prisma sends a transaction's statements from its own flow, not from inside this
          // callback, so they are parented to the transaction's span explicitly.
          wrapQueries(tx, span);
          return callback(tx);
        }),
      ),
    )) as PGlite['transaction'];
}
