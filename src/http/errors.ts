/**
 * HTTP-level errors in the spec's Error shape: route errors, Fastify's own (bad JSON, body too large,
 * schema validation), unknown paths (404) and known paths called with another method (405 with
 * `Allow`). On /graphql the same error goes out as a GraphQL response
 * (`{ errors: [{ message, extensions: { code, status } }] }`) so GraphQL clients can read it.
 */
import crypto from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BadRequestError,
  ErrorCode,
  MethodNotAllowedError,
  UnauthenticatedError,
  UnavailableError,
  UNAVAILABLE_RETRY_AFTER_S,
  type ErrorBody,
} from '../errors/app-error';
import { knownError } from '../errors/database-errors';
import Negotiator from 'negotiator';
import { ID_FORMAT_MESSAGE, INT64_PATTERN } from '../common/ids';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  409: ErrorCode.CONFLICT,
  410: ErrorCode.GONE,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
};

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * `limit: must be <= 100`: the failing parameter (or body field) by name, then what is wrong. An id
 * that fails the int64 pattern gets the same message as everywhere else.
 */
function validationMessage(e: FastifyError): string {
  const issue = (e.validation as AjvIssue[] | undefined)?.[0];
  if (!issue) return e.message;
  const missing = issue.keyword === 'required' ? String(issue.params.missingProperty) : null;
  const name = missing ?? issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const what = missing
    ? 'is required'
    : issue.keyword === 'pattern' && issue.params.pattern === INT64_PATTERN
      ? ID_FORMAT_MESSAGE
      : (issue.message ?? 'is invalid');
  return name ? `${name}: ${what}` : `${e.validationContext ?? 'request'}: ${what}`;
}

/** Maps any error to the Error object; `null` means unexpected (the caller logs and masks it). */
export function errorBody(error: unknown): ErrorBody | null {
  const known = knownError(error);
  if (known) return known.toBody();
  const e = error as FastifyError;
  if (e.validation) {
    return { code: ErrorCode.VALIDATION_FAILED, message: validationMessage(e), status: 400 };
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    // 415: a body that is not JSON (text/plain, form, multipart): see http-basics.plugin.ts.
    const code = CODE_BY_STATUS[status] ?? ErrorCode.BAD_REQUEST;
    return { code, message: e.message, status: CODE_BY_STATUS[status] ? status : 400 };
  }
  return null;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

/**
 * The media type of a GraphQL answer, chosen from `Accept` exactly as Apollo Server chooses it for
 * the answers it writes (ApolloServer.ts, chooseContentTypeForSingleResultResponse), so an error
 * written here (401 of the auth hook, 429 of the rate limit, 413, 415) has the type of every other
 * answer. An Accept that allows neither gets JSON: an error answer must still be readable.
 */
export function graphqlMediaType(accept: string | undefined): string {
  if (!accept) return JSON_TYPE;
  return new Negotiator({ headers: { accept } }).mediaType([JSON_TYPE, GRAPHQL_RESPONSE_TYPE]) ?? JSON_TYPE;
}

/** Every type Apollo Server may answer an operation with (the same function of ApolloServer.ts). */
const ANSWER_TYPES = [JSON_TYPE, GRAPHQL_RESPONSE_TYPE, 'application/json; callbackSpec=1.0; charset=utf-8'];

/** Whether `Accept` allows one of them; when it does not, Apollo answers 406 NOT_ACCEPTABLE. */
export function acceptsGraphqlAnswer(accept: string | undefined): boolean {
  return !accept || new Negotiator({ headers: { accept } }).mediaType(ANSWER_TYPES) !== undefined;
}

/** The GraphQL endpoint's own URL (its query string aside): `/graphql/` or `/graphqlx` are other paths. */
const isGraphqlPath = (url: string): boolean => routerPath(url) === '/graphql';

export function sendError(request: FastifyRequest, reply: FastifyReply, body: ErrorBody): FastifyReply {
  reply.code(body.status);
  // No cache keeps an error, on any path (docs/caching.md, docs/rest.md): a 404 turns into a 200 once
  // the thing exists. The one place this is said: every error answer of the app goes through here.
  reply.header('cache-control', 'no-store');
  if (isGraphqlPath(request.url)) {
    reply.type(graphqlMediaType(request.headers.accept));
    return reply.send({ errors: [{ message: body.message, extensions: { code: body.code, status: body.status } }] });
  }
  return reply.type(JSON_TYPE).send(body);
}

/**
 * A request URL's path as the router matches it: without the query, percent-decoded as find-my-way
 * decodes it (`decodeURI` keeps `%2F` and the other reserved characters encoded, as it does). Matching
 * the raw path instead missed `/p%65ts/1`, which the router serves as `/pets/1`: a path-based rule
 * (the lifecycle headers, the 410 after the sunset, 405) has to see the path the route sees. A
 * malformed encoding stays as it is (the router refuses it, 400).
 */
export function routerPath(url: string): string {
  const path = url.split('?')[0]!;
  if (!path.includes('%')) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** A route's URL pattern (`/pets/:petId`) as a RegExp over request paths (as `routerPath` gives them). */
export function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * Every route's pattern and methods, collected as routes are added, so that an unmatched request
 * can be told apart: unknown path (404) or known path with another method (405 + Allow).
 * Catch-all routes (`*`, e.g. the CORS preflight responder) are left out: they match every path.
 */
function collectRoutes(app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    if (route.url === '*' || route.url === '/*') return;
    // OPTIONS is answered as a CORS preflight only (with CORS_ORIGINS): not a method of the resource to list.
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'OPTIONS');
    routes.push({ pattern: routePattern(route.url), methods });
  });
  return (path) => {
    const allowed = new Set<string>();
    for (const route of routes) if (route.pattern.test(path)) route.methods.forEach((m) => allowed.add(m));
    return [...allowed].sort();
  };
}

/** The one body type this server parses (text/plain is removed on purpose: http-basics.plugin.ts, the CSRF rule). */
export const ACCEPTED_BODY_TYPE = 'application/json';

/**
 * The 415 of a body that is not JSON, with the hint Fastify's "Unsupported Media Type" lacks: which
 * type was sent, and which is accepted (also as `Accept-Post`, the header that lists them).
 */
function unsupportedMediaType(request: FastifyRequest, reply: FastifyReply): ErrorBody {
  const sent = request.headers['content-type'];
  reply.header('accept-post', ACCEPTED_BODY_TYPE);
  const alternative = isGraphqlPath(request.url) ? ' (or send a query with GET)' : '';
  return {
    code: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    message:
      `Unsupported Media Type: ${sent ? `Content-Type "${sent}"` : 'no Content-Type'} is not accepted; ` +
      `send the body as JSON with "Content-Type: ${ACCEPTED_BODY_TYPE}"${alternative}`,
    status: 415,
  };
}

export function registerErrorHandlers(app: FastifyInstance): void {
  const allowedMethods = collectRoutes(app);
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof UnauthenticatedError) reply.header('www-authenticate', error.challenge);
    if ((error as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(request, reply, unsupportedMediaType(request, reply));
    }
    let body = errorBody(error);
    if (!body) {
      request.log.error({ err: error }, 'unexpected error');
      body = { code: ErrorCode.INTERNAL, message: `Internal server error (request id ${request.id})`, status: 500 };
    }
    if (error instanceof MethodNotAllowedError) reply.header('allow', error.allow.join(', '));
    if (body.code === ErrorCode.UNAVAILABLE) {
      // A database error mapped to UNAVAILABLE, or an UnavailableError naming what is away.
      const what = error instanceof UnavailableError ? error.what : 'database';
      request.log.warn({ err: { message: (error as Error).message } }, `${what} unavailable`);
      reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_S);
    }
    return sendError(request, reply, body);
  });
  const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    const allow = allowedMethods(routerPath(request.url));
    // A route that takes this method and found nothing (a file the asset routes do not hold): 404.
    if (allow.length > 0 && !allow.includes(request.method)) {
      reply.header('allow', allow.join(', '));
      return sendError(
        request,
        reply,
        new MethodNotAllowedError(`${request.method} is not allowed on ${path}`, allow).toBody(),
      );
    }
    return sendError(request, reply, {
      code: ErrorCode.NOT_FOUND,
      message: `No route for ${request.method} ${path}`,
      status: 404,
    });
  };
  // Before the body is read (after every onRequest check): no route takes it, and reading it first
  // answered a POST of invalid JSON, or over BODY_LIMIT_BYTES, to a GET path 400 or 413, not 405.
  // The connection closes after the answer when a body was sent, so that the body is not read after it.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!request.is404) return done(null, payload);
    const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
    if (chunked !== undefined || (length !== undefined && length !== '0')) reply.header('connection', 'close');
    noRoute(request, reply);
  });
  app.setNotFoundHandler(noRoute);
}

/**
 * `Host` as RFC 9110 allows it (a name or address, a bracketed IPv6 literal, an optional port), and
 * as a URL can hold: the GraphQL integration builds the request's URL from it, and a `Host: [` or
 * `Host: a b` used to make that throw, answered 500 INTERNAL with a stack in the log.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=-]+)(?::\d{0,5})?$/;

/** How many `Host` lines a request's raw headers (name, value, name, value...) hold. */
function hostLines(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n++;
  return n;
}

/**
 * Refuses a request whose host (`Host`, or `X-Forwarded-Host` from a trusted proxy) is missing or
 * malformed, or that has more than one `Host` line: 400 BAD_REQUEST in the Error shape, before anything else reads it. Registered after the
 * security headers, so the refusal carries them like every answer.
 */
export function registerHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const host = request.host;
    if (
      typeof host !== 'string' ||
      !HOST.test(host) ||
      !URL.canParse(`http://${host}/`) ||
      // RFC 9112 3.2: more than one Host line is a 400. Node keeps the first and drops the others, so a
      // proxy reading another one would disagree with this server on the host asked for.
      hostLines(request.raw.rawHeaders) > 1
    ) {
      throw new BadRequestError('The Host header is missing or is not a host name or address with an optional port');
    }
    done();
  });
}

/**
 * What Node's HTTP parser refuses before any request exists (Fastify's `clientErrorHandler`), in the
 * Error shape with the API's security headers and a request id, where Fastify's default writes its
 * own body (`{"error":...,"statusCode":...}`) and no header: headers or a URL over the size limit
 * (431), a request not received within REQUEST_TIMEOUT_MS (408), and anything that is not HTTP/1.1
 * (`Content-Length` beside `Transfer-Encoding`, a bad chunk, a malformed request line: 400). Each is
 * a client's mistake, logged at debug with its parser code, never as an error. As Node's and
 * Fastify's own handlers do, the socket is then destroyed: the parser cannot find the next request.
 */
export function clientErrorHandler(
  headers: Record<string, string>,
): (this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket) => void {
  return function onClientError(error, socket) {
    // A reset connection, or one already gone: nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const body: ErrorBody =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { code: ErrorCode.BAD_REQUEST, message: 'The request was not received in time', status: 408 }
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? {
              code: ErrorCode.PAYLOAD_TOO_LARGE,
              message: "The request's headers (its URL included) are larger than this server accepts",
              status: 431,
            }
          : { code: ErrorCode.BAD_REQUEST, message: 'The request is not valid HTTP/1.1', status: 400 };
    const id = crypto.randomUUID();
    this.log.debug({ reqId: id, code: error.code, status: body.status }, 'refused by the HTTP parser');
    if (socket.writable) {
      const json = JSON.stringify(body);
      const lines = [
        `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(json)}`,
        'Connection: close',
        `X-Request-Id: ${id}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n${json}`);
    }
    socket.destroy(error);
  };
}

/**
 * Fastify's router errors, which it otherwise answers itself (its own JSON shape, before any hook,
 * so without the security headers): an over-long path parameter (FST_ERR_MAX_PARAM_LENGTH, which
 * Fastify answers 414) is a parameter that cannot be valid, 400 VALIDATION_FAILED; a URL that does
 * not decode (FST_ERR_BAD_URL) is 400 BAD_REQUEST. `decorate` adds the headers every answer carries.
 */
export function frameworkErrorHandler(
  decorate: (request: FastifyRequest, reply: FastifyReply) => void,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    decorate(request, reply);
    const path = request.url.split('?')[0]!.slice(0, 100);
    const body: ErrorBody =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? {
            code: ErrorCode.VALIDATION_FAILED,
            message: `A path parameter of ${path}... is longer than any valid value`,
            status: 400,
          }
        : error.code === 'FST_ERR_BAD_URL'
          ? {
              code: ErrorCode.BAD_REQUEST,
              message: 'The URL is not valid (a malformed percent-encoding?)',
              status: 400,
            }
          : { code: ErrorCode.INTERNAL, message: `Internal server error (request id ${request.id})`, status: 500 };
    if (body.status === 500) request.log.error({ err: error }, 'unexpected router error');
    sendError(request, reply, body);
  };
}
