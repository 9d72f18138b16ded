/**
 * SQL spans on the embedded database. instrumentation-pg knows only node-postgres; PGlite runs
 * in-process behind `query`, `exec` and `transaction`, which the SQL reader and Prisma's PGlite
 * adapter both call. Wrapping those three methods of the one instance gives the same spans as on
 * PostgreSQL (`pg.query:SELECT`, `db.statement`, ...) and one span per transaction with its statements
 * as children. Installed only when tracing is on (main.ts).
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { tracer } from './tracing';

const VERB = /^\s*(\w+)/;

function statementSpan<T>(sql: string, run: () => Promise<T>): Promise<T> {
  const verb = VERB.exec(sql)?.[1]?.toUpperCase() ?? 'SQL';
  return tracer().startActiveSpan(
    `pg.query:${verb}`,
    { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.name': 'pglite', 'db.statement': sql } },
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

function wrapQueries<Q extends Pick<PGlite, 'query' | 'exec'>>(target: Q): void {
  const query = target.query.bind(target);
  const exec = target.exec.bind(target);
  target.query = ((sql: string, ...rest: unknown[]) =>
    statementSpan(sql, () => (query as (...a: unknown[]) => Promise<unknown>)(sql, ...rest))) as Q['query'];
  target.exec = ((sql: string, ...rest: unknown[]) =>
    statementSpan(sql, () => (exec as (...a: unknown[]) => Promise<unknown>)(sql, ...rest))) as Q['exec'];
}

export function tracePglite(pglite: PGlite): void {
  wrapQueries(pglite);
  const transaction = pglite.transaction.bind(pglite);
  pglite.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    tracer().startActiveSpan(
      'pg.transaction',
      { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql', 'db.name': 'pglite' } },
      (span) =>
        ended(span, () =>
          transaction((tx) => {
            wrapQueries(tx);
            return callback(tx);
          }),
        ),
    )) as PGlite['transaction'];
}
