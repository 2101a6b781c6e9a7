import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { StratusApp } from './stratus-app.js';

/** The revision of the reference the API follows (the `X-Spec-Version` header, the document). */
export const SPEC_VERSION = '4.174.0';

/** Where the emulator controls' own document is served. */
export const CONTROLS_OPENAPI_PATH = '/_stratus/openapi.json';

declare module 'fastify' {
  interface FastifyInstance {
    /** The emulator controls' OpenAPI document (`/_stratus/openapi.json`). */
    controlsSwagger: FastifyInstance['swagger'];
  }
}

const CONTROLS_DESCRIPTION = `Stratus's own endpoints under \`/_stratus/\`: the emulator controls a
test suite or an operator drives (reset, seed, snapshots, timing, the job clock, fault rules,
scheduled maintenance), the probes, and Stratus's extensions of the API. They are not part of the
cloud's API (\`/v4/openapi.json\`).

**Authentication.** The controls need \`Authorization: Bearer <operator token>\`: the value of
\`STRATUS_OPERATOR_TOKEN\`, or the token the first start printed (\`stratus operator-token\` draws a
new one). The probes (\`/_stratus/health\`, \`/_stratus/ready\`), this document and
\`/_stratus/docs\` need none. Extensions of the API take an API token with the scopes they name.

**Fault rules** (\`PUT /_stratus/faults\`). ${'{FAULTS}'}

**In a test suite**, the \`stratus/testing\` helper of the npm package starts a server and calls
these for you (README, "Use it in your tests").`;

/** Whether a route belongs in the controls' document: under `/_stratus/` and documented there. */
function isControlsRoute(url: string, schema: Record<string, unknown>, operationId: unknown) {
  if (!url.startsWith('/_stratus/')) return false;
  if (url.startsWith('/_stratus/docs') || url === CONTROLS_OPENAPI_PATH) return false;
  return Array.isArray(schema.tags) || typeof operationId === 'string';
}

/**
 * The OpenAPI document of the API (`/v4/openapi.json`, the `/v4` routes only, with paths relative
 * to `/v4`), the emulator controls' own (`/_stratus/openapi.json`, the `/_stratus/` routes that
 * declare tags or an operation), and the reference page of both (`/_stratus/docs`, a selector
 * at the top switches between them). Call before the routes are registered.
 */
export async function registerOpenApi(
  app: StratusApp,
  opts: { faultRulesDoc?: string } = {},
): Promise<void> {
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
  await app.register(swagger, {
    decorator: 'controlsSwagger',
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Stratus: emulator controls',
        version: SPEC_VERSION,
        description: CONTROLS_DESCRIPTION.replace('{FAULTS}', opts.faultRulesDoc ?? ''),
      },
      components: {
        securitySchemes: {
          operatorToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'STRATUS_OPERATOR_TOKEN, or the one the first start printed.',
          },
          personalAccessToken: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ operatorToken: [] }],
    },
    transform: ({ schema, url, route }) => {
      const s = (schema ?? {}) as Record<string, unknown>;
      const config = (route.config ?? {}) as { operatorToken?: boolean; operationId?: string };
      if (!isControlsRoute(url, s, config.operationId)) {
        return { schema: { ...s, hide: true } as never, url };
      }
      // Routes open to all (probes) or taking an API token (extensions) say so.
      const security =
        config.operationId !== undefined
          ? [{ personalAccessToken: [] }]
          : config.operatorToken === false
            ? []
            : undefined;
      return {
        schema: {
          ...s,
          hide: false,
          ...(config.operationId !== undefined
            ? { operationId: config.operationId, tags: s.tags ?? ['Stratus extensions'] }
            : {}),
          ...(security ? { security } : {}),
        } as never,
        url,
      };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/_stratus/docs',
    uiConfig: {
      urls: [
        { url: '/v4/openapi.json', name: 'Compute cloud API (/v4)' },
        { url: CONTROLS_OPENAPI_PATH, name: 'Stratus emulator controls (/_stratus)' },
      ],
    },
  });
  app.get('/v4/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get(
    CONTROLS_OPENAPI_PATH,
    { schema: { hide: true }, config: { operatorToken: false } },
    async () => app.controlsSwagger(),
  );
}
