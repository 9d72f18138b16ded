/**
 * Input rules shared by every entry point (GraphQL and REST call the same services, and the
 * services validate with these). zod does the checking; failures become VALIDATION_FAILED naming
 * the field.
 */
import { z } from 'zod';
import { ValidationError } from '../errors/app-error';

export const NAME_MAX_LENGTH = 100;
export const DESCRIPTION_MAX_LENGTH = 1000;
export const SEARCH_MAX_LENGTH = 100;

// PostgreSQL text cannot hold NUL, and control characters in a name are never intended.
const NO_CONTROL_CHARS = /^[^\p{Cc}]*$/u;
// Tab, LF and CR stay (free text has lines); the C1 controls (U+0080-U+009F) are controls too.
const NO_CONTROL_CHARS_EXCEPT_WHITESPACE = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/;

/** A display name: trimmed, 1..100 characters, no control characters. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
  .regex(NO_CONTROL_CHARS, 'must not contain control characters');

/** Free text: trimmed, at most 1000 characters, newlines and tabs allowed; empty means none. */
export const descriptionSchema = z
  .string()
  .trim()
  .max(DESCRIPTION_MAX_LENGTH, `must be at most ${DESCRIPTION_MAX_LENGTH} characters`)
  .regex(NO_CONTROL_CHARS_EXCEPT_WHITESPACE, 'must not contain control characters')
  .transform((s) => (s === '' ? null : s));

export const searchSchema = z
  .string()
  .max(SEARCH_MAX_LENGTH, `must be at most ${SEARCH_MAX_LENGTH} characters`)
  .regex(NO_CONTROL_CHARS, 'must not contain control characters');

/** Parses `input` with `schema`, or throws VALIDATION_FAILED naming the first bad field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw new ValidationError(`${field}${issue.message}`);
}
