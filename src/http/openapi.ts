import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { StratusApp } from './stratus-app.js';

/** The revision of the reference the API follows (the `X-Spec-Version` header, the document). */
export const SPEC_VERSION = '4.174.0';

/**
 * The OpenAPI document of the API (`/v4/openapi.json`, the `/v4` routes only, with paths relative
 * to `/v4`) and its reference page (`/_stratus/docs`). Call before the routes are registered.
 */
export async function registerOpenApi(app: StratusApp): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Stratus: compute cloud API',
        version: SPEC_VERSION,
        description:
          'The API served by this Stratus instance. See docs/fidelity.md for deviations.',
      },
      servers: [{ url: '/v4' }, { url: '/v4beta' }],
      components: {
        securitySchemes: {
          personalAccessToken: { type: 'http', scheme: 'bearer' },
          oauth: {
            type: 'oauth2',
            flows: {
              authorizationCode: {
                authorizationUrl: '/oauth/authorize',
                tokenUrl: '/oauth/token',
                scopes: {},
              },
            },
          },
        },
      },
    },
    transform: ({ schema, url }) => {
      const s = (schema ?? {}) as Record<string, unknown>;
      const hidden = !url.startsWith('/v4/') || url === '/v4/openapi.json';
      return {
        schema: (hidden ? { ...s, hide: true } : s) as never,
        url: url.replace(/^\/v4/, ''),
      };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/_stratus/docs' });
  app.get('/v4/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
