/**
 * The GraphQL explorer a browser gets at GET /graphql (EXPLORER, docs/development.md):
 *
 * - `sandbox`: Apollo Sandbox, as Apollo's own landing page shows it, loaded from Apollo's CDN. When
 *   the Sandbox cannot load (offline, behind a proxy, air-gapped), the same page falls back by
 *   itself to GraphiQL served by this service from npm packages: no request leaves the machine.
 * - `graphiql`: that local GraphiQL only.
 * - `off`: no page (Apollo's "disabled" landing page).
 *
 * Apollo's landing-page plugins cannot fall back, so this is a landing page of our own (the same
 * Sandbox embed as Apollo's). GraphiQL 3 ships a ready browser build (`graphiql.min.js`, on React 18's
 * UMD builds), so nothing is bundled here: the files are served as the packages ship them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { Explorer } from '../config';
import { AppError, ErrorCode } from '../errors/app-error';
import { EXPLORER_OFF_MESSAGE } from '../policy/errors';
import { acceptsGraphqlAnswer } from '../http/errors';

/** Where the explorer's files are served from. */
export const EXPLORER_ASSETS = '/explorer/';

/** Apollo's embeddable Sandbox (what ApolloServerPluginLandingPageLocalDefault loads). */
const SANDBOX_SCRIPT =
  'https://embeddable-sandbox.cdn.apollographql.com/_latest/embeddable-sandbox.umd.production.min.js';

/** The package folder of `name` (resolved from here, so it works from src/ and dist/src/). */
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/**
 * graphql-ws's browser build, for subscriptions over WebSocket at the same /graphql URL, when the
 * package is installed; without it the page runs queries and mutations and says so for a subscription.
 */
function graphqlWsBrowserBuild(): string | null {
  try {
    const file = path.join(packageDir('graphql-ws'), 'umd', 'graphql-ws.min.js');
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/** The files of the page, by the name they are served under. */
function assetFiles(): Record<string, string> {
  const files: Record<string, string> = {
    // A browser script, not compiled: beside this module, in src/ and in dist/src/ alike (`npm run
    // build` copies src/'s non-TypeScript files there: scripts/build-if-stale.js).
    'explorer.browser.js': path.join(__dirname, 'explorer.browser.js'),
    'graphiql.min.js': path.join(packageDir('graphiql'), 'graphiql.min.js'),
    'graphiql.min.css': path.join(packageDir('graphiql'), 'graphiql.min.css'),
    'react.production.min.js': path.join(packageDir('react'), 'umd', 'react.production.min.js'),
    'react-dom.production.min.js': path.join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'),
  };
  const ws = graphqlWsBrowserBuild();
  if (ws) files['graphql-ws.min.js'] = ws;
  return files;
}

/** Serves the explorer's files under /explorer/ (only those: nothing else of node_modules). */
export async function registerExplorerAssets(app: FastifyInstance): Promise<void> {
  const files = assetFiles();
  const byDir = new Map<string, string[]>();
  for (const [name, file] of Object.entries(files)) {
    if (path.basename(file) !== name) throw new Error(`explorer asset ${name} must keep its file name (${file})`);
    byDir.set(path.dirname(file), [...(byDir.get(path.dirname(file)) ?? []), name]);
  }
  const allowed = new Set(Object.keys(files));
  await app.register(fastifyStatic, {
    root: [...byDir.keys()],
    prefix: EXPLORER_ASSETS,
    decorateReply: false,
    index: false,
    list: false,
    allowedPath: (pathName) => allowed.has(pathName.replace(/^\//, '')),
    // The files change only with a package upgrade; revalidate rather than guess a lifetime.
    cacheControl: true,
    maxAge: 0,
  });
}

/**
 * The page's own Content-Security-Policy (a <meta>, as Apollo's landing page does; helmet's strict
 * header is left off this one route in graphql.plugin.ts): scripts only from here and Apollo's Sandbox CDN, no
 * inline script, the Sandbox's frame, and connections to this origin (HTTP and WebSocket).
 */
const CSP = [
  "default-src 'self'",
  `script-src 'self' https://embeddable-sandbox.cdn.apollographql.com`,
  // GraphiQL and the Sandbox set inline styles.
  "style-src 'self' 'unsafe-inline' https://embeddable-sandbox.cdn.apollographql.com https://fonts.googleapis.com",
  "font-src 'self' data: https://fonts.gstatic.com",
  "img-src 'self' data: https://apollo-server-landing-page.cdn.apollographql.com",
  'frame-src https://sandbox.embed.apollographql.com',
  "connect-src 'self' ws: wss:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page at GET /graphql. Its configuration travels in data- attributes: no inline script. */
export function explorerHtml(explorer: Exclude<Explorer, 'off'>): string {
  const data = {
    'data-mode': explorer,
    'data-sandbox-script': SANDBOX_SCRIPT,
    'data-assets': EXPLORER_ASSETS,
    'data-subscriptions': graphqlWsBrowserBuild() ? 'graphql-ws' : '',
  };
  const attrs = Object.entries(data)
    .map(([k, v]) => `${k}="${escapeAttr(v)}"`)
    .join(' ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta http-equiv="Content-Security-Policy" content="${CSP}" />
    <meta name="viewport" content="width=device-width,initial-scale=1" />
    <title>Petstore GraphQL explorer</title>
    <link rel="stylesheet" href="${EXPLORER_ASSETS}graphiql.min.css" />
    <link rel="icon" href="/favicon.ico" />
    <style>
      html, body { height: 100%; margin: 0; }
      body { display: flex; flex-direction: column; }
      #explorer { flex: 1; min-height: 0; }
      #explorer iframe { height: 100%; width: 100%; border: none; }
      #explorer-status { font-family: system-ui, sans-serif; padding: 1rem; color: #555; }
      #explorer-notice { font-family: system-ui, sans-serif; font-size: 0.9rem; padding: 0.4rem 1rem; background: #fff4ce; color: #4a3b00; border-bottom: 1px solid #e0c866; }
    </style>
  </head>
  <body>
    <div id="explorer-notice" role="status" hidden></div>
    <div id="explorer-status">Loading the GraphQL explorer ...</div>
    <div id="explorer" ${attrs}></div>
    <script src="${EXPLORER_ASSETS}explorer.browser.js"></script>
  </body>
</html>
`;
}

/** Apollo landing-page plugin serving the explorer page. */
export function explorerPlugin(explorer: Exclude<Explorer, 'off'>): ApolloServerPlugin {
  const html = explorerHtml(explorer);
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}

/** What asks GET /graphql for an operation in its query string (GraphQL over GET, by hash or in full). */
const OPERATION_PARAMS = ['query', 'documentId', 'extensions'];

/**
 * GET /graphql's first check while the explorer is off: a browser opening the URL (no operation in
 * the query string, not a WebSocket upgrade, HTML preferred to JSON as Apollo decides for its landing
 * page) gets the 406 that names EXPLORER. A browser's Accept also allows any type, so without this check
 * Apollo answered it 400 "must contain a non-empty `query`", saying nothing of the explorer.
 */
export async function explorerOffNotice(request: FastifyRequest): Promise<void> {
  if (request.headers.upgrade || !request.headers.accept) return;
  const params = (request.query ?? {}) as Record<string, unknown>;
  if (OPERATION_PARAMS.some((name) => params[name] !== undefined)) return;
  const preferred = new Negotiator({ headers: { accept: request.headers.accept } }).mediaType([
    'application/json',
    'application/graphql-response+json',
    'text/html',
  ]);
  if (preferred === 'text/html') throw new AppError(ErrorCode.NOT_ACCEPTABLE, 406, EXPLORER_OFF_MESSAGE);
}

/**
 * /graphql's first check (POST and GET): a request whose Accept allows no GraphQL answer (neither
 * JSON nor application/graphql-response+json) is the 406 NOT_ACCEPTABLE Apollo gives it, but before
 * anything runs. Apollo chooses the answer's type after executing the operation: a mutation was done
 * and answered 406, as if refused, and a batch was counted and charged. A GET that may get the
 * explorer page (on, and HTML accepted) is left to Apollo, which runs nothing for it.
 */
export function unacceptableAnswer(explorerOn: boolean) {
  return async function refuseUnacceptable(request: FastifyRequest): Promise<void> {
    const accept = request.headers.accept;
    if (request.headers.upgrade || acceptsGraphqlAnswer(accept)) return;
    if (request.method === 'GET' && explorerOn && new Negotiator({ headers: { accept } }).mediaType(['text/html']))
      return;
    throw new AppError(ErrorCode.NOT_ACCEPTABLE, 406, EXPLORER_OFF_MESSAGE);
  };
}
