/**
 * `GET /`: a small answer saying what this server is and where to go (the GraphQL endpoint and its
 * explorer, the REST reference, the OpenAPI document, the health checks), instead of a bare 404.
 * JSON for programs, HTML for a browser, chosen from `Accept`. And `GET /favicon.ico`, which every
 * browser asks for (a 404 there is noise in the request log and a blank tab icon).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';

export interface LandingOptions {
  /** Whether GET /graphql serves the explorer to a browser (EXPLORER is not `off`). */
  explorer: boolean;
}

/**
 * The favicon, served as committed (a 32x32 PNG inside an ICO). Beside this module: `npm run build`
 * copies src/'s non-TypeScript files into dist/src/ (scripts/build-if-stale.js), so the runtime an
 * operator ships (dist/ without src/, docs/deployment.md) has it too.
 */
export const FAVICON_FILE = path.join(__dirname, 'assets', 'favicon.ico');

interface Link {
  href: string;
  title: string;
}

function landingLinks(explorer: boolean): Record<string, Link> {
  return {
    graphql: {
      href: '/graphql',
      title: explorer ? 'GraphQL endpoint (open it in a browser for the explorer)' : 'GraphQL endpoint (POST)',
    },
    docs: { href: '/docs', title: 'REST reference (the legacy paths)' },
    openapi: { href: '/openapi.json', title: 'OpenAPI document of the REST paths' },
    health: { href: '/healthz', title: 'liveness' },
    ready: { href: '/readyz', title: 'readiness (the database answers)' },
  };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function landingHtml(links: Record<string, Link>): string {
  const items = Object.values(links)
    .map((l) => `      <li><a href="${escapeHtml(l.href)}">${escapeHtml(l.href)}</a>: ${escapeHtml(l.title)}</li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <title>Petstore GraphQL gateway</title>
    <link rel="icon" href="/favicon.ico" />
  </head>
  <body>
    <h1>Petstore GraphQL gateway</h1>
    <ul>
${items}
    </ul>
  </body>
</html>
`;
}

export async function landingRoutes(app: FastifyInstance, { explorer }: LandingOptions): Promise<void> {
  const links = landingLinks(explorer);
  const body = { name: 'petstore-graphql-gateway', links };
  const html = landingHtml(links);
  app.get('/', { logLevel: 'warn' }, async (request, reply) => {
    const type = new Negotiator({ headers: request.headers }).mediaType(['application/json', 'text/html']);
    reply.header('vary', 'Accept');
    // No Accept (curl) or */*: JSON; a browser lists text/html first.
    if (type === 'text/html') return reply.type('text/html; charset=utf-8').send(html);
    return reply.type('application/json; charset=utf-8').send(body);
  });
  const favicon = fs.readFileSync(FAVICON_FILE);
  app.get('/favicon.ico', { logLevel: 'warn' }, async (_request, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(favicon),
  );
}
