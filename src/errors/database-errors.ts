/**
 * Database error translation, in one place. The two drivers report constraint violations
 * differently: adapter-pg arrives as PrismaClientKnownRequestError (P2002/P2003/P2025), the PGlite
 * adapter as a DriverAdapterError whose cause carries the PostgreSQL SQLSTATE. Both are read here.
 */
import { Prisma } from '../generated/prisma/client';

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
