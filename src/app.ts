import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyPluginAsync,
  type RawServerDefault,
  type RouteOptions,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import { sql } from 'kysely';
import type { AppContext } from './context.js';
import { errors } from './errors/errors.js';
import { authHook } from './http/auth-hook.js';
import { errorHandler } from './http/error-handler.js';
import { intRangeHook } from './http/int-range.js';
import { nulBytesHook } from './http/nul-bytes.js';
import { canonicalIdsHook, integerParams } from './http/path-ids.js';
import { lazySerializerFactory, lazyValidator } from './http/lazy-compilers.js';
import './http/route-config.js';
import { ErrorEnvelope } from './http/schemas/common.js';
import { subsystem } from './logger.js';
import { catalogueRoutes } from './modules/catalogue/catalogue.routes.js';
import { instancesRoutes } from './modules/compute/instances.routes.js';
import { configsRoutes } from './modules/compute/configs.routes.js';
import { disksRoutes } from './modules/compute/disks.routes.js';
import { interfacesRoutes } from './modules/compute/interfaces.routes.js';
import { computeIpsRoutes } from './modules/compute/ips.routes.js';
import { computeStatsRoutes } from './modules/compute/stats.routes.js';
import { computeOpsRoutes } from './modules/compute/ops.routes.js';
import { computeBackupsRoutes } from './modules/compute/backups.routes.js';
import { networkingRoutes } from './modules/networking/networking.routes.js';
import { addressesRoutes } from './modules/networking/addresses.routes.js';
import { firewallInternalRoutes, firewallsRoutes } from './modules/networking/firewalls.routes.js';
import { eventsRoutes } from './modules/events/events.routes.js';
import { profileRoutes } from './modules/profile/profile.routes.js';
import { accountRoutes } from './modules/account/account.routes.js';
import { nbConfigsRoutes } from './modules/nodebalancers/configs.routes.js';
import { nodebalancersRoutes } from './modules/nodebalancers/nodebalancers.routes.js';
import { tagsRoutes } from './modules/tags/tags.routes.js';
import { loginServiceRoutes } from './modules/oauth/login-service.routes.js';
import { oauthRoutes } from './modules/oauth/oauth.routes.js';
import { paymentMethodsRoutes } from './modules/billing/payment-methods.routes.js';
import { billingRoutes, priceRoutes } from './modules/billing/billing.routes.js';
import { volumesRoutes } from './modules/volumes/volumes.routes.js';
import { vpcsRoutes } from './modules/vpcs/vpcs.routes.js';
import { imagesRoutes, imageUploadRoutes } from './modules/images/images.routes.js';
import { stackScriptsRoutes } from './modules/stackscripts/stackscripts.routes.js';
import { objectStorageRoutes } from './modules/object-storage/objects.routes.js';
import { s3Plugin } from './modules/object-storage/s3/s3.plugin.js';
import { controlsRoutes } from './modules/controls/controls.routes.js';
import { transfersRoutes } from './modules/transfers/transfers.routes.js';
import { noticesOperatorRoutes, noticesRoutes } from './modules/account-notices/notices.routes.js';
import { faultsHook } from './modules/controls/faults.js';
import { operatorHook } from './modules/controls/operator.js';

export type StratusApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export const SPEC_VERSION = '4.174.0';
/**
 * `/v4beta` serves the same API as `/v4`: its requests are routed as `/v4` ones (the URL is
 * rewritten before routing), so every route, schema and compiled serializer exists once.
 */
export function betaToV4(url: string | undefined): string {
  if (url === undefined) return '/';
  return url.startsWith('/v4beta') && (url.length === 7 || '/?'.includes(url[7] as string))
    ? `/v4${url.slice(7)}`
    : url;
}
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** Every API area, registered explicitly. Later areas add a line here. */
function areas(ctx: AppContext): FastifyPluginAsync[] {
  return [
    catalogueRoutes(ctx),
    eventsRoutes(ctx),
    profileRoutes(ctx),
    accountRoutes(ctx),
    paymentMethodsRoutes(ctx),
    billingRoutes(ctx),
    priceRoutes(),
    instancesRoutes(ctx),
    disksRoutes(ctx),
    configsRoutes(ctx),
    interfacesRoutes(ctx),
    computeIpsRoutes(ctx),
    computeStatsRoutes(ctx),
    computeOpsRoutes(ctx),
    computeBackupsRoutes(ctx),
    networkingRoutes(ctx),
    firewallsRoutes(ctx),
    addressesRoutes(ctx),
    volumesRoutes(ctx),
    vpcsRoutes(ctx),
    tagsRoutes(ctx),
    nodebalancersRoutes(ctx),
    nbConfigsRoutes(ctx),
    imagesRoutes(ctx),
    stackScriptsRoutes(ctx),
    oauthRoutes(ctx),
    objectStorageRoutes(ctx),
    transfersRoutes(ctx),
    noticesRoutes(ctx),
  ] as FastifyPluginAsync[];
}

function makeAjv(coerce: false | 'array') {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: 'all',
    useDefaults: true,
    coerceTypes: coerce,
    verbose: true,
    strict: false,
    // The schemas are TypeBox's output: checking each against the JSON Schema meta-schema (which
    // AJV compiles first) only slowed the start.
    validateSchema: false,
  });
  addFormats.default(ajv);
  // A schema may carry the real service's wording for its own failure.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

/** Headers of every answer, as the real service sends them (docs/fidelity.md). */
const COMMON_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-credentials': 'true',
  'access-control-allow-headers':
    'Authorization, Origin, X-Requested-With, Content-Type, Accept, X-Filter',
  'access-control-allow-methods': 'HEAD, GET, OPTIONS, POST, PUT, DELETE',
  'access-control-expose-headers': 'X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Status',
  'cache-control': 'max-age=0, no-cache, no-store',
  vary: 'Authorization, X-Filter',
  'x-spec-version': SPEC_VERSION,
};

/** Routes with a body schema see {} when no body was sent, so required fields are named. */
function emptyBodyHook(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (req.body === undefined) req.body = {};
  done();
}

/** Builds the Fastify application (no listen). */
export async function buildApp(ctx: AppContext): Promise<StratusApp> {
  const httpLog = subsystem(ctx.log, 'http');
  const app = Fastify({
    loggerInstance: httpLog as FastifyBaseLogger,
    // One log line per request is written in onResponse, with the operationId.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimit,
    requestIdHeader: 'x-request-id',
    // Undecodable URLs and over-long path parameters: the error envelope, not Fastify's body.
    frameworkErrors: errorHandler,
    rewriteUrl: (req) => betaToV4(req.url),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    ajv: { customOptions: {} },
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are validated strictly; query strings and params are coerced from text.
  const bodyAjv = makeAjv(false);
  const queryAjv = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(httpPart === 'body' ? bodyAjv : queryAjv, schema),
  );

  // JSON bodies. An empty body counts as no body whatever its Content-Type: SDKs send actions
  // without one, with their HTTP library's default type or none. Only a non-empty body that is
  // not JSON is a 415.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  const isEmpty = (body: string | Buffer) => body.length === 0 || body.toString().trim() === '';
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (isEmpty(body)) return done(null, undefined);
    jsonParser(req, body as string, done);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => {
    if (isEmpty(body)) return done(null, undefined);
    done(errors.unsupportedMediaType());
  });

  // A router of every API path, to tell 405 (known path, other method) from 404.
  const known = FindMyWay({
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: true,
    defaultRoute: () => {},
  });
  const seen = new Set<string>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const cfg = route.config ?? {};
    if (cfg.operationId) {
      route.schema ??= {};
      const schema = route.schema as Record<string, unknown>;
      schema.operationId ??= cfg.operationId;
      schema.response ??= {};
      const response = schema.response as Record<string, unknown>;
      response.default ??= ErrorEnvelope;
      if (cfg.auth !== 'public') {
        schema.security = [
          { personalAccessToken: [] },
          { oauth: cfg.auth === 'token' ? [] : (cfg.scopes ?? []) },
        ];
      }
    }
    const own = route.preValidation === undefined ? [] : [route.preValidation].flat();
    const ids = integerParams(route);
    const body = (route.schema as { body?: Record<string, unknown> } | undefined)?.body;
    route.preValidation = [
      ...(ids.length > 0 ? [canonicalIdsHook(ids)] : []),
      ...(cfg.operationId ? [nulBytesHook] : []),
      ...(cfg.operationId && body ? [intRangeHook(body)] : []),
      ...((route.schema as { body?: unknown } | undefined)?.body ? [emptyBodyHook] : []),
      ...own,
    ];
    for (const m of [route.method].flat()) {
      const key = `${m} ${route.url}`;
      if ((METHODS as readonly string[]).includes(m) && !seen.has(key)) {
        seen.add(key);
        known.on(m as (typeof METHODS)[number], route.url, () => {});
      }
    }
  });

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

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => known.find(m, path) !== null);
    if (req.method === 'OPTIONS' && allowed.length > 0) return reply.status(204).send();
    const err = allowed.length > 0 ? errors.methodNotAllowed(allowed) : errors.notFound();
    return errorHandler(err, req, reply);
  });

  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(COMMON_HEADERS);
    reply.header('x-request-id', req.id);
    done();
  });
  app.addHook('onRequest', operatorHook(ctx.operator));
  app.addHook('onRequest', authHook(ctx));
  app.addHook('onRequest', faultsHook(ctx.db, ctx.faults));
  app.addHook('onResponse', (req, reply, done) => {
    const op =
      req.routeOptions.config?.operationId ??
      req.operation ??
      (reply.statusCode === 404 ? 'not_found' : 'internal');
    const seconds = reply.elapsedTime / 1000;
    ctx.metrics.observe(op, req.method, reply.statusCode, seconds);
    req.log.info(
      {
        reqId: req.id,
        operationId: op,
        method: req.method,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });

  for (const area of areas(ctx)) await app.register(area, { prefix: '/v4' });

  await app.register(imageUploadRoutes(ctx));
  // The OAuth login service, at its own paths outside the API prefixes.
  await app.register(loginServiceRoutes(ctx));
  app.get('/v4/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerInternal(app, ctx);
  await app.register(firewallInternalRoutes(ctx));
  // The S3 data plane: raw streams, its own parsing and errors (src/modules/object-storage/s3).
  await app.register(s3Plugin(ctx));
  await app.register(controlsRoutes(ctx));
  await app.register(noticesOperatorRoutes(ctx));
  return app;
}

/** `/_stratus/*`: liveness and readiness (open), metrics (operator token). */
function registerInternal(app: StratusApp, ctx: AppContext): void {
  const probe = { schema: { hide: true }, config: { operatorToken: false as const } };
  app.get('/_stratus/health', probe, async () => ({ status: 'ok' }));
  app.get('/_stratus/ready', probe, async (_req, reply) => {
    try {
      await sql`select 1`.execute(ctx.db.db);
      return { status: 'ready', database: ctx.db.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', database: ctx.db.dialect });
    }
  });
  app.get('/_stratus/metrics', { schema: { hide: true } }, async (_req, reply) => {
    const rows = await ctx.db.db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const oldest = await ctx.db.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.min('run_at').as('due'))
      .where('status', '=', 'queued')
      .where('run_at', '<=', ctx.clock.nowMs())
      .executeTakeFirst();
    const due = oldest?.due === null || oldest?.due === undefined ? undefined : Number(oldest.due);
    const text = ctx.metrics.render(
      {
        byStatus: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
        lagSeconds: due === undefined ? 0 : Math.max(0, (ctx.clock.nowMs() - due) / 1000),
        runner: ctx.runner.stats,
      },
      ctx.services.events.cache.stats,
    );
    return reply.type('text/plain; version=0.0.4').send(text);
  });
}
