/**
 * Database error translation, in one place. The two drivers report constraint violations
 * differently: adapter-pg arrives as PrismaClientKnownRequestError (P2002/P2003/P2025), the PGlite
 * adapter as a DriverAdapterError whose cause carries the PostgreSQL SQLSTATE. Both are read here.
 */
import { Prisma } from '../generated/prisma/client';
import { AppError, UnavailableError } from './app-error';

export type ConstraintViolation =
  | { kind: 'unique'; target: string | undefined }
  | { kind: 'foreign-key'; target: string | undefined }
  | { kind: 'record-not-found' };

interface PgCause {
  code?: string;
  originalCode?: string;
  message?: string;
  originalMessage?: string;
  constraint?: { fields?: string[]; index?: string };
}

const constraintName = (message: string | undefined) => message?.match(/constraint "([^"]+)"/)?.[1];

/** Classifies a thrown error as a constraint violation, or returns null for anything else. */
export function constraintViolation(error: unknown): ConstraintViolation | null {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2025') return { kind: 'record-not-found' };
    const cause = (error.meta?.driverAdapterError as { cause?: PgCause } | undefined)?.cause;
    const target = constraintName(cause?.originalMessage) ?? cause?.constraint?.index;
    if (error.code === 'P2002') return { kind: 'unique', target };
    if (error.code === 'P2003') return { kind: 'foreign-key', target };
    return null;
  }
  if (error instanceof Error && error.name === 'DriverAdapterError') {
    const cause = (error as Error & { cause?: PgCause }).cause;
    const code = cause?.code ?? cause?.originalCode;
    const target = constraintName(cause?.message ?? cause?.originalMessage);
    if (code === '23505') return { kind: 'unique', target };
    // 23503: foreign_key_violation; 23001: restrict_violation (ON DELETE RESTRICT).
    if (code === '23503' || code === '23001') return { kind: 'foreign-key', target };
  }
  return null;
}

/**
 * PostgreSQL SQLSTATEs of a connection that failed or a statement that ran out of time; 25006: a
 * write on a server that is read-only (a standby, or a primary being switched over in a failover);
 * 28000/28P01: a server that refuses this process's logins (pg_hba, a rotated password, a role
 * locked), where /readyz says the database is unavailable too.
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|57014|25P03|25006|28000|28P01|53300)$/;
/** Prisma's codes for an unreachable server, a lost connection, or a transaction that ran out of time. */
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028']);
/** Driver errors that carry no code (node-postgres, pg-pool, sockets). */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Transaction already closed|Unable to start a transaction|Transaction API error|server closed the connection|terminating connection/i;

/**
 * Whether an error means the database is unavailable (unreachable, connection lost, no answer in
 * time) rather than a bug: such errors are answered 503 UNAVAILABLE, never INTERNAL. Looks through
 * the error, its `cause` chain and Prisma's driver-adapter metadata.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const e = current as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      originalMessage?: unknown;
      kind?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (current instanceof Prisma.PrismaClientKnownRequestError && UNAVAILABLE_PRISMA.has(current.code)) return true;
    if (current instanceof Prisma.PrismaClientInitializationError) return true;
    for (const code of [e.code, e.originalCode])
      if (typeof code === 'string' && UNAVAILABLE_SQLSTATE.test(code)) return true;
    for (const message of [e.message, e.originalMessage])
      if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    current = e.cause ?? e.meta?.driverAdapterError;
  }
  return false;
}

/**
 * The AppError that `error` is answered as, on every transport (REST, GraphQL over HTTP, WebSocket):
 * itself, or 503 UNAVAILABLE when it means the database is unavailable; null for anything else (a
 * bug: the caller logs it and masks it as INTERNAL).
 */
export function knownError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  return isDatabaseUnavailable(error) ? new UnavailableError() : null;
}
