/**
 * The deprecation lifecycle of a REST path, in the standard headers:
 * - `Deprecation: @<unix seconds>` (RFC 9745), the instant the path is (or will be) deprecated;
 * - `Sunset: <IMF-fixdate>` (RFC 8594), the instant it stops answering;
 * - `Link: <successor>; rel="successor-version", <docs>; rel="deprecation"`.
 * They go on every answer on the path, whatever the method or status (errors, 304, 405 included),
 * because a client that only ever sees errors must learn too. From the sunset on, every request on
 * the path is 410 GONE (before validation or any database work).
 *
 * Hooks are added at the root, matched on the request path, so that answers produced outside the
 * route (405 for another method) carry the headers as well.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GoneError } from '../errors/app-error';
import type { Clock } from '../common/clock';
import { routePattern, routerPath } from './errors';

export interface Lifecycle {
  deprecatedAt: Date;
  sunsetAt: Date;
  /** Where a person reads about the deprecation (`rel="deprecation"`). */
  docsUrl: string;
  /** What to use instead (`rel="successor-version"`). */
  successorUrl: string;
}

/** The three header values for a lifecycle. */
export function deprecationHeaders(lifecycle: Lifecycle): Record<'deprecation' | 'sunset' | 'link', string> {
  return {
    deprecation: `@${Math.floor(lifecycle.deprecatedAt.getTime() / 1000)}`,
    // toUTCString() is the IMF-fixdate of RFC 9110 ("Thu, 01 Jul 2027 00:00:00 GMT").
    sunset: lifecycle.sunsetAt.toUTCString(),
    link: `<${lifecycle.successorUrl}>; rel="successor-version", <${lifecycle.docsUrl}>; rel="deprecation"`,
  };
}

/**
 * Puts `lifecycle`'s headers on an answer when its request is on `url`'s path (a route pattern such as
 * `/pets/:petId`), and says whether it was. The one place that decides which answers carry them: the
 * path's hooks, and the router's own refusals (app.ts's `frameworkErrors`, which no hook sees).
 */
export function lifecycleHeaders(
  url: string,
  lifecycle: Lifecycle,
): (request: FastifyRequest, reply: FastifyReply) => boolean {
  // A parameter may be empty here (`/pets/` is refused 400 by the route, an answer of the path too).
  const pattern = new RegExp(routePattern(url).source.replaceAll('[^/]+', '[^/]*'));
  const headers = deprecationHeaders(lifecycle);
  return (request, reply) => {
    if (!pattern.test(routerPath(request.url))) return false;
    reply.headers(headers);
    return true;
  };
}

/** Declares `url` (a route pattern such as `/pets/:petId`) deprecated with `lifecycle`. */
export function registerDeprecatedPath(app: FastifyInstance, url: string, lifecycle: Lifecycle, clock: Clock): void {
  const onPath = lifecycleHeaders(url, lifecycle);
  // Hooks with a callback, not async: what they do is synchronous, and an async hook costs every
  // request a promise and a turn of the microtask queue (docs/benchmarks.md "Round 18"). A throw is
  // the request's error, as from an async hook.
  app.addHook('onRequest', (request, reply, done) => {
    if (!onPath(request, reply)) return done();
    if (clock().getTime() >= lifecycle.sunsetAt.getTime()) {
      // Not stored, as no error is (sendError): moving the sunset later must take effect at once.
      throw new GoneError(
        `${url.replace(/:(\w+)/g, '{$1}')} was retired on ${lifecycle.sunsetAt.toUTCString()}; use ${lifecycle.successorUrl} (see ${lifecycle.docsUrl})`,
      );
    }
    done();
  });
  // A request refused by an earlier onRequest hook (the Host check, the rate limit, a credential)
  // never reaches this one's; every answer goes through onSend, so the headers are set again there.
  app.addHook('onSend', (request, reply, payload, done) => {
    onPath(request, reply);
    done(null, payload);
  });
}
