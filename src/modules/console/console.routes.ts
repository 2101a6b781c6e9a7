import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SPEC_VERSION } from '../../http/openapi.js';
import type { RouteContext } from '../../platform/area.js';
import { STRATUS_VERSION } from '../../platform/version.js';
import { CONSOLE_CLIENT_ID, CONSOLE_REDIRECT_PATH } from '../oauth/console-client.js';
import type { ConsoleFiles } from './console.files.js';
import { ServerInfoSchema } from './console.schemas.js';

type Ctx = RouteContext<{ files: ConsoleFiles }>;

/** Hashed file names change with their content: kept a year, never asked again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The origin a request reached the server at (the login service's issuer is the same). */
const originOf = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

/** Shown at `/` when `dist/console/` is missing (the sources run, the build was never made). */
const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stratus</title></head>
<body><main><h1>Stratus is running</h1><p>The web console is not built: run <code>npm run build</code>.
The API is at <a href="/v4/regions">/v4</a>, its reference at <a href="/_stratus/docs">/_stratus/docs</a>,
the server's facts at <a href="/_stratus/info">/_stratus/info</a>.</p></main></body></html>`;

/**
 * The console page: no cache (a new build's asset names reach the browser at once), and a policy
 * that lets it load its own scripts and talk to this server and the S3 data plane only.
 */
function page(ctx: Ctx, html: string | undefined, reply: FastifyReply): FastifyReply {
  const s3 = ctx.config.s3Endpoint ? ` ${new URL(ctx.config.s3Endpoint).origin}` : '';
  return reply
    .type('text/html; charset=utf-8')
    .headers({
      'cache-control': 'no-cache',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'${s3}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'`,
    })
    .status(html === undefined ? 503 : 200)
    .send(html ?? NOT_BUILT);
}

/** The console's page and assets, and the server's facts for its landing page. */
export function consoleRoutes(ctx: Ctx) {
  const { files } = ctx.services;
  return async (app: FastifyInstance) => {
    await app.register(fastifyStatic, {
      root: files.assets,
      prefix: '/console/assets/',
      // Served as the build wrote them: `.br` and `.gz` twins when the browser takes them.
      preCompressed: true,
      decorateReply: false,
      index: false,
      // No walk of the directory at start (the start-up stays fast).
      wildcard: true,
      setHeaders: (reply) => {
        reply.header('cache-control', IMMUTABLE);
      },
    });
    const spa = async (_req: FastifyRequest, reply: FastifyReply) =>
      page(ctx, await files.index(), reply);
    const hide = { schema: { hide: true } };
    app.get('/', hide, spa);
    app.get('/console', hide, spa);
    app.get('/console/*', hide, spa);

    app.get(
      '/_stratus/info',
      {
        schema: { hide: true, response: { 200: ServerInfoSchema } },
        config: { operatorToken: false },
      },
      async (req) => {
        const origin = originOf(req);
        const running = await ctx.db.db
          .selectFrom('jobs')
          .select('locked_by')
          .distinct()
          .where('status', '=', 'running')
          .where('locked_by', 'is not', null)
          .execute();
        return {
          name: 'Stratus',
          version: STRATUS_VERSION,
          spec_version: SPEC_VERSION,
          engine: ctx.db.dialect,
          timing: ctx.timing.current,
          clock: { mode: ctx.clock.mode, now: new Date(ctx.clock.nowMs()).toISOString() },
          workers: {
            in_process: ctx.config.inProcessWorker,
            busy: running.flatMap((r) => (r.locked_by === null ? [] : [r.locked_by])),
          },
          urls: {
            api: `${origin}/v4`,
            s3: ctx.config.s3Endpoint ?? `${origin}/_stratus/s3`,
            login: `${origin}/oauth/authorize`,
            token: `${origin}/oauth/token`,
            docs: `${origin}/_stratus/docs`,
            openapi: `${origin}/v4/openapi.json`,
            console: `${origin}/console`,
          },
          console: {
            client_id: CONSOLE_CLIENT_ID,
            redirect_uri: `${origin}${CONSOLE_REDIRECT_PATH}`,
            built: (await files.index()) !== undefined,
          },
        };
      },
    );
  };
}
