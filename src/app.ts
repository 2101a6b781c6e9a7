import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import FindMyWay from 'find-my-way';
import type { AppContext } from './context.js';
import { errors } from './errors/errors.js';
import { errorHandler } from './http/error-handler.js';
import { intRangeHook } from './http/int-range.js';
import { nulBytesHook } from './http/nul-bytes.js';
import { nullOptionalsHook } from './http/null-optional.js';
import { HeadRoutes, headOnSend } from './http/head-routes.js';
import { canonicalIdsHook, integerParams } from './http/path-ids.js';
import { notProvidedReason, unservedRouter } from './http/unserved.js';
import { lazySerializerFactory, lazyValidator } from './http/lazy-compilers.js';
import { ProductWord, wordFilter, wordInHook, wordOut } from './http/product-word.js';
import { lazyChildLoggerFactory } from './http/request-logger.js';
import { routeGate } from './http/route-gate.js';
import './http/route-config.js';
import type { StratusApp } from './http/stratus-app.js';
import { FAULT_RULES_DOC } from './modules/controls/faults.js';
import { registerOpenApi, SPEC_VERSION } from './http/openapi.js';
import { registerProbes } from './platform/probes.js';
import { registerAreas } from './platform/register-areas.js';
import { ErrorEnvelope } from './http/schemas/common.js';
import { fixedHeadersResponse } from './http/fixed-headers.js';
import type { Logger } from 'pino';
import { subsystem } from './logger.js';

export type { StratusApp };
export { SPEC_VERSION };

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
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-spec-version': SPEC_VERSION,
};

/** Path parameters that are credentials: such paths are logged by their route pattern. */
const SECRET_PARAM = /:(token|secret)\b/;

/** Routes with a body schema see {} when no body was sent, so required fields are named. */
function emptyBodyHook(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (req.body === undefined) req.body = {};
  done();
}

/** Builds the Fastify application (no listen). */
export async function buildApp(ctx: AppContext): Promise<StratusApp> {
  const httpLog = subsystem(ctx.log, 'http');
  // STRATUS_PRODUCT_WORD: translated at the edge; nothing of it is installed when unset.
  const word = ctx.config.productWord ? new ProductWord(ctx.config.productWord) : undefined;
  const routerOptions = { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true };
  // HEAD of every GET without a HEAD route per GET (src/http/head-routes.ts).
  const heads = new HeadRoutes(routerOptions);
  const app = Fastify({
    loggerInstance: httpLog as FastifyBaseLogger,
    // One log line per request is written in onResponse, with the operationId.
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's pino child is made at its first log line (src/http/request-logger.ts).
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: ctx.config.bodyLimit,
    requestIdHeader: 'x-request-id',
    // Undecodable URLs and over-long path parameters: the error envelope, not Fastify's body.
    frameworkErrors: errorHandler,
    rewriteUrl: (req) => {
      const url = word ? betaToV4(word.inUrl(req.url ?? '/')) : betaToV4(req.url);
      heads.route(req, url);
      return url;
    },
    routerOptions,
    // The headers of every answer, validated once (src/http/fixed-headers.ts).
    http: { ServerResponse: fixedHeadersResponse(COMMON_HEADERS) },
    exposeHeadRoutes: false,
    ajv: { customOptions: {} },
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are validated strictly; query strings and params are coerced from text. Each AJV
  // instance is made when a route first validates with it, not at start-up.
  let bodyAjv: Ajv | undefined;
  let queryAjv: Ajv | undefined;
  const bodyAjvOf = () => {
    bodyAjv ??= makeAjv(false);
    return bodyAjv;
  };
  const queryAjvOf = () => {
    queryAjv ??= makeAjv('array');
    return queryAjv;
  };
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(httpPart === 'body' ? bodyAjvOf : queryAjvOf, schema),
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

  // A router of every API path, to tell 405 (known path, other method) from 404. Built at the
  // first request that no route answers, not at start-up (a second router of every route costs
  // about a tenth of the start).
  const paths: [(typeof METHODS)[number], string][] = [];
  let knownRouter: ReturnType<typeof FindMyWay> | undefined;
  const known = () => {
    if (knownRouter) return knownRouter;
    knownRouter = FindMyWay({
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      defaultRoute: () => {},
    });
    for (const [m, url] of paths) knownRouter.on(m, url, () => {});
    return knownRouter;
  };
  const seen = new Set<string>();
  // Set by a route's request gate; declared so that every request object has the same shape.
  app.decorateRequest('routeInfo', null);
  app.addHook('onRoute', (route: RouteOptions) => {
    heads.noteRoute(route);
    const cfg = route.config ?? {};
    // The operator token, authentication and faults: one hook of the routes that need them.
    const gate = routeGate(ctx, route.url, route.config);
    if (gate) route.onRequest = [gate, ...[route.onRequest ?? []].flat()];
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
      ...(word && cfg.operationId && route.url.startsWith('/v4/')
        ? [wordInHook(word, (route.schema ?? {}) as { body?: unknown; querystring?: unknown })]
        : []),
      ...(ids.length > 0 ? [canonicalIdsHook(ids)] : []),
      ...(cfg.operationId ? [nulBytesHook] : []),
      ...(cfg.operationId && body ? [nullOptionalsHook(body), intRangeHook(body)] : []),
      ...((route.schema as { body?: unknown } | undefined)?.body ? [emptyBodyHook] : []),
      ...own,
    ];
    for (const m of [route.method].flat()) {
      const key = `${m} ${route.url}`;
      if ((METHODS as readonly string[]).includes(m) && !seen.has(key)) {
        seen.add(key);
        paths.push([m as (typeof METHODS)[number], route.url]);
        knownRouter = undefined;
      }
    }
  });

  await registerOpenApi(app, { faultRulesDoc: FAULT_RULES_DOC });

  app.setErrorHandler(errorHandler);
  // Paths of the areas of the API this server does not serve: 501 naming the area.
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const router = known();
    const allowed = METHODS.filter((m) => router.find(m, path) !== null);
    if (req.method === 'OPTIONS' && allowed.length > 0) return reply.status(204).send();
    // An unserved area's path wins over a served route that merely matches its shape
    // (`POST /images/sharegroups` is not a method missing from `/images/{imageId}`).
    const area = unservedRouter().find(path);
    // A route of this method that found nothing to serve (a missing static file) is a 404.
    const err = area
      ? errors.notProvided(notProvidedReason(area))
      : allowed.length > 0 && !(allowed as string[]).includes(req.method)
        ? errors.methodNotAllowed(allowed)
        : errors.notFound();
    return errorHandler(err, req, reply);
  });

  // The one onRequest hook of every request (the routes that need the operator token,
  // authentication or faults add theirs: src/http/route-gate.ts): a HEAD routed as its GET is a
  // HEAD again, the X-Filter in the canonical word, and the headers of every answer.
  app.addHook('onRequest', (req, reply, done) => {
    heads.restore(req);
    if (word) wordFilter(word, req);
    reply.headers(COMMON_HEADERS);
    reply.header('x-request-id', req.id);
    done();
  });
  // The one onSend hook: `application/json` as the real service labels its answers (Fastify adds
  // a charset), the answer in the product word, and no body for a HEAD routed as its GET (last:
  // its Content-Length is the translated body's).
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') {
      reply.header('content-type', 'application/json');
    }
    const out = word ? wordOut(word, req, reply, payload) : payload;
    done(null, heads.routedAsGet(req) ? headOnSend(reply, out) : out);
  });
  app.addHook('onResponse', (req, reply, done) => {
    // The route as its gate recorded it; Fastify's `routeOptions` (an object built at each
    // read) only for routes without a gate.
    const route = req.routeInfo;
    const op =
      (route ? route.operationId : req.routeOptions.config?.operationId) ??
      req.operation ??
      (reply.statusCode === 404
        ? 'not_found'
        : reply.statusCode === 501
          ? 'not_provided'
          : 'internal');
    const seconds = reply.elapsedTime / 1000;
    ctx.metrics.observe(op, req.method, reply.statusCode, seconds);
    // One line per request (at `info`: the line is not even made below that level). The request
    // id is the child logger's `reqId` already; a route whose path carries a credential (an
    // upload URL's secret) is logged by its pattern.
    if ((req.log as Partial<Logger>).isLevelEnabled?.('info') === false) return done();
    const pattern = route ? route.url : req.routeOptions.url;
    const path =
      pattern && SECRET_PARAM.test(pattern) ? pattern : (req.url.split('?')[0] ?? req.url);
    req.log.info(
      {
        method: req.method,
        path,
        operation:
          (route ? route.operationId : req.routeOptions.config?.operationId) ??
          req.operation ??
          pattern ??
          null,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        account: req.principal?.accountEuuid ?? null,
      },
      `${req.method} ${path} ${reply.statusCode}`,
    );
    done();
  });

  const served = new Map<string, { operations: number; routes: number }>();
  registerProbes(app, ctx, served);
  await registerAreas(app, ctx, served);
  return app;
}
