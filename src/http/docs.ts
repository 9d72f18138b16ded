/**
 * GET /docs: the API reference (Swagger UI, served from the swagger-ui-dist files that
 * @fastify/swagger-ui ships: no CDN, works with no internet). It renders the generated document, so
 * deprecation (greyed, "Deprecated"), the sunset date in the description and the stability labels
 * come from the same source as GET /openapi.json.
 *
 * The "Try it out" panel is turned off per operation by ReadMe's extension
 * `x-readme: { explorer-enabled: false }` (GET /store/orders sets it): Swagger UI has no such
 * switch of its own, so a small plugin reads the extension.
 */
import type { FastifyInstance } from 'fastify';
import fastifySwaggerUi from '@fastify/swagger-ui';

/**
 * A Swagger UI plugin; runs in the browser (serialised with Function#toString by @fastify/swagger-ui),
 * so it must not use anything from this module's scope.
 */
function perOperationTryItOut() {
  return {
    statePlugins: {
      spec: {
        wrapSelectors: {
          allowTryItOutFor:
            (
              original: (...args: unknown[]) => boolean,
              system: { specSelectors: { specJson(): { getIn(path: string[]): unknown } } },
            ) =>
            (state: unknown, path: string, method: string) => {
              const enabled = system.specSelectors
                .specJson()
                .getIn(['paths', path, method, 'x-readme', 'explorer-enabled']);
              return enabled === false ? false : original(state, path, method);
            },
        },
      },
    },
  };
}

export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      docExpansion: 'list',
      displayOperationId: false,
      showExtensions: true,
      // Swagger UI's own plugins come from its presets; this adds ours.
      plugins: [perOperationTryItOut as unknown as never],
    },
    theme: { title: 'Petstore REST API reference' },
  });
}
