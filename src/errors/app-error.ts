/**
 * The one error model. Every expected failure is an AppError with a literal `code` and an HTTP
 * `status`; GraphQL puts them in `extensions { code, status }`, REST sends them as the spec's Error
 * object `{ code, message, status }`. Anything that is not an AppError is masked as INTERNAL.
 */

/** Every code a client can see (published in GraphQL as the `ErrorCode` enum). */
export enum ErrorCode {
  BAD_REQUEST = 'BAD_REQUEST',
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  NOT_ACCEPTABLE = 'NOT_ACCEPTABLE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  PERSISTED_QUERY_NOT_FOUND = 'PERSISTED_QUERY_NOT_FOUND',
  PERSISTED_QUERY_HASH_MISMATCH = 'PERSISTED_QUERY_HASH_MISMATCH',
  PERSISTED_QUERY_NOT_SUPPORTED = 'PERSISTED_QUERY_NOT_SUPPORTED',
  PERSISTED_QUERY_NOT_IN_LIST = 'PERSISTED_QUERY_NOT_IN_LIST',
  CONFLICT = 'CONFLICT',
  OUT_OF_STOCK = 'OUT_OF_STOCK',
  INVALID_TRANSITION = 'INVALID_TRANSITION',
  GONE = 'GONE',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED = 'RATE_LIMITED',
  UNAVAILABLE = 'UNAVAILABLE',
  INTERNAL = 'INTERNAL',
}

/** The spec's Error object. */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(ErrorCode.BAD_REQUEST, 400, message);
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super(ErrorCode.VALIDATION_FAILED, 400, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(ErrorCode.NOT_FOUND, 404, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(ErrorCode.CONFLICT, 409, message);
  }
}

export class OutOfStockError extends AppError {
  constructor(message: string) {
    super(ErrorCode.OUT_OF_STOCK, 409, message);
  }
}

export class InvalidTransitionError extends AppError {
  constructor(message: string) {
    super(ErrorCode.INVALID_TRANSITION, 409, message);
  }
}

/**
 * No usable credential: 401 with a `WWW-Authenticate` challenge. `invalidToken` is true when a
 * credential was sent but is not a valid key (RFC 6750 `error="invalid_token"`).
 */
export class UnauthenticatedError extends AppError {
  constructor(
    message: string,
    readonly invalidToken = false,
  ) {
    super(ErrorCode.UNAUTHENTICATED, 401, message);
  }

  get challenge(): string {
    return this.invalidToken ? 'Bearer error="invalid_token"' : 'Bearer';
  }
}

/** A valid key that lacks the scope the operation needs. */
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(ErrorCode.FORBIDDEN, 403, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string) {
    super(ErrorCode.RATE_LIMITED, 429, message);
  }
}

/** A GraphQL operation over one of the limits (depth, aliases, tokens, cost): says which. */
export class QueryTooComplexError extends AppError {
  constructor(
    readonly limit: 'depth' | 'aliases' | 'directives' | 'tokens' | 'cost' | 'cost budget',
    message: string,
  ) {
    super(ErrorCode.QUERY_TOO_COMPLEX, 400, message);
  }
}

/**
 * TRUSTED_DOCUMENTS=enforce: the document (sent in full, or named by a hash) is not in the trusted
 * list, and the caller has no `admin` scope. Refused before the document is parsed (403, no data).
 */
export class PersistedQueryNotInListError extends AppError {
  constructor(message: string) {
    super(ErrorCode.PERSISTED_QUERY_NOT_IN_LIST, 403, message);
  }
}

/** A known path called with a method it does not have; `allow` is sent as the `Allow` header. */
export class MethodNotAllowedError extends AppError {
  constructor(
    message: string,
    readonly allow: readonly string[],
  ) {
    super(ErrorCode.METHOD_NOT_ALLOWED, 405, message);
  }
}

/** A path that existed and was retired (after its sunset date). */
export class GoneError extends AppError {
  constructor(message: string) {
    super(ErrorCode.GONE, 410, message);
  }
}

/**
 * A dependency the request needs (the database, the identity provider's keys) is unreachable or did not answer in time: 503 with
 * `Retry-After` (UNAVAILABLE_RETRY_AFTER_S). Nothing was changed, or the transaction was rolled back,
 * except where the connection died after a write's COMMIT was sent: then it may have taken effect,
 * which a retry shows (an idempotent `placeOrder` returns the first order; docs/operations.md).
 */
export class UnavailableError extends AppError {
  /** `what` names the dependency for the operator's log line (`<what> unavailable`). */
  constructor(
    message = 'The database is unavailable; retry shortly',
    readonly what = 'database',
  ) {
    super(ErrorCode.UNAVAILABLE, 503, message);
  }
}

/** Seconds a client is told to wait (Retry-After) before retrying an UNAVAILABLE request. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

export class InternalError extends AppError {
  constructor(requestId: string | undefined) {
    super(
      ErrorCode.INTERNAL,
      500,
      requestId ? `Internal server error (request id ${requestId})` : 'Internal server error',
    );
  }
}
