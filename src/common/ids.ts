/**
 * Identifiers are PostgreSQL BIGINT (int64). They travel as decimal strings in GraphQL and as JSON
 * integers in REST; inside the service they are `bigint`, so no value above 2^53 loses precision.
 */
import { ValidationError } from '../errors/app-error';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * The shape of an id in decimal digits. Also the JSON-schema `pattern` of REST id parameters: Ajv
 * would coerce an integer-typed parameter to a JS number and lose digits above 2^53, so REST routes
 * take ids as patterned strings and `parseId` checks the int64 range.
 */
export const INT64_PATTERN = '^-?[0-9]{1,19}$';
const DECIMAL = new RegExp(INT64_PATTERN);

/** The message of every malformed id, GraphQL or REST. */
export const ID_FORMAT_MESSAGE = 'must be a 64-bit integer id in decimal digits';

/** Parses an id given as a decimal string, a safe integer or a bigint; throws VALIDATION_FAILED. */
export function parseId(value: unknown, field = 'id'): bigint {
  let id: bigint | null = null;
  if (typeof value === 'bigint') id = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) id = BigInt(value);
  else if (typeof value === 'string' && DECIMAL.test(value)) id = BigInt(value);
  if (id === null || id < INT64_MIN || id > INT64_MAX) {
    throw new ValidationError(`${field}: ${ID_FORMAT_MESSAGE}`);
  }
  return id;
}
