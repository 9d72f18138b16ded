/**
 * HTTP-level errors in the spec's Error shape: route errors, Fastify's own (bad JSON, body too large,
 * schema validation), unknown paths. On /graphql the same error goes out as a GraphQL response
 * (`{ errors: [{ message, extensions: { code, status } }] }`) so GraphQL clients can read it.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode, UnauthenticatedError, type ErrorBody } from '../errors/app-error';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  410: ErrorCode.GONE,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  429: ErrorCode.RATE_LIMITED,
};

/** Maps any error to the Error object; `null` means unexpected (the caller logs and masks it). */
export function errorBody(error: unknown): ErrorBody | null {
  if (error instanceof AppError) return error.toBody();
  const e = error as FastifyError;
  if (e.validation) {
    return { code: ErrorCode.VALIDATION_FAILED, message: `${e.validationContext ?? 'request'}${e.message.replace(/^\w+/, '')}`, status: 400 };
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    // 415 (a body that is not JSON) is a malformed request by this API's contract.
    const code = CODE_BY_STATUS[status] ?? ErrorCode.BAD_REQUEST;
    return { code, message: e.message, status: CODE_BY_STATUS[status] ? status : 400 };
  }
  return null;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, body: ErrorBody): FastifyReply {
  reply.code(body.status).type('application/json; charset=utf-8');
  if (request.url.startsWith('/graphql')) {
    return reply.send({ errors: [{ message: body.message, extensions: { code: body.code, status: body.status } }] });
  }
  return reply.send(body);
}

export function registerErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof UnauthenticatedError) reply.header('www-authenticate', error.challenge);
    let body = errorBody(error);
    if (!body) {
      request.log.error({ err: error }, 'unexpected error');
      body = { code: ErrorCode.INTERNAL, message: `Internal server error (request id ${request.id})`, status: 500 };
    }
    return sendError(request, reply, body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, {
      code: ErrorCode.NOT_FOUND,
      message: `No route for ${request.method} ${request.url.split('?')[0]}`,
      status: 404,
    }),
  );
}
