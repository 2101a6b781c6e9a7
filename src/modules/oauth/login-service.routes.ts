import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { publicOrigin } from '../../http/public-url.js';
import type { RouteContext } from '../../platform/area.js';
import type { AuthorizeService } from './authorize.service.js';
import type { TokenService } from './token.service.js';
import { SCOPE_AREAS } from '../../auth/scopes.js';
import type { AuthorizeResult, Params } from './authorize.service.js';
import { DEVICE_COOKIE, DEVICE_TTL_MS } from './devices.js';
import { consentPage, errorPage, signInPage } from './pages.js';
import type { OAuthReply } from './token.service.js';

type Ctx = RouteContext<{ authorize: AuthorizeService; tokens: TokenService }>;

/** The authorization request's parameters, as the sign-in form carries them along. */
const REQUEST_KEYS = [
  'client_id',
  'response_type',
  'scopes',
  'scope',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

function pick(src: Params): Params {
  const out: Params = {};
  for (const k of REQUEST_KEYS) if (typeof src[k] === 'string') out[k] = src[k];
  return out;
}

/** Strings only: a repeated parameter is refused by taking none of it. */
function flat(src: unknown): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries((src ?? {}) as Record<string, unknown>))
    if (typeof v === 'string') out[k] = v;
  return out;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // The consent page carries a one-time ticket; no page of the sign-in is kept by a cache.
  'cache-control': 'no-store',
};

/** The origin of a registered redirect URI (http/https only), for the pages' CSP. */
function originOf(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An HTML page. Browsers apply `form-action` to the redirects that follow a form's submission
 * too, so a page whose form ends at the client's redirect URI (consent; sign-in errors sent back
 * to the client) allows that origin and no other.
 */
function html(
  reply: FastifyReply,
  status: number,
  body: string,
  redirectUri?: string,
): FastifyReply {
  const back = originOf(redirectUri);
  const formAction = back ? `'self' ${back}` : "'self'";
  return reply
    .status(status)
    .headers({
      ...PAGE_HEADERS,
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}`,
    })
    .send(body);
}

function notOk(reply: FastifyReply, r: Exclude<AuthorizeResult, { ok: true }>): FastifyReply {
  return 'redirect' in r ? reply.redirect(r.redirect, 302) : html(reply, 400, errorPage(r.page));
}

function oauthReply(reply: FastifyReply, r: OAuthReply): FastifyReply {
  if (r.headers) reply.headers(r.headers);
  return reply.status(r.status).type('application/json').send(r.body);
}

function cookieValue(req: FastifyRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

function basicAuth(req: FastifyRequest): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/**
 * The login service, served by the API process outside `/v4`: `/oauth/authorize` (sign-in and
 * consent pages), `/oauth/token`, `/oauth/revoke` and the RFC 8414 metadata.
 */
export function loginServiceRoutes(ctx: Ctx) {
  const authorize = ctx.services.authorize;
  const tokens = ctx.services.tokens;
  return async (app: FastifyInstance) => {
    // Forms (RFC 6749 §3.2): urlencoded bodies, parsed into strings.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_req, body, done) => {
        const out: Params = {};
        const seen = new Set<string>();
        for (const [k, v] of new URLSearchParams(body as string)) {
          if (seen.has(k)) out[k] = undefined;
          else out[k] = v;
          seen.add(k);
        }
        done(null, out);
      },
    );

    app.get('/.well-known/oauth-authorization-server', async (req) => {
      // The issuer: STRATUS_PUBLIC_URL, else the request's own scheme and host.
      const base = publicOrigin(ctx.config, req);
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        revocation_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'none',
        ],
        scopes_supported: [
          '*',
          ...SCOPE_AREAS.flatMap((a) => [`${a}:read_only`, `${a}:read_write`]),
        ],
        service_documentation: `${base}/_stratus/docs`,
      };
    });

    app.get('/oauth/authorize', async (req, reply) => {
      const q = pick(flat(req.query));
      const v = await authorize.validate(q, publicOrigin(ctx.config, req));
      if (!v.ok) return notOk(reply, v);
      return html(reply, 200, signInPage(v.client.label, q), v.client.redirect_uri);
    });

    app.post('/oauth/login', async (req, reply) => {
      const body = flat(req.body);
      const q = pick(body);
      const r = await authorize.signIn(
        q,
        publicOrigin(ctx.config, req),
        {
          username: body.username ?? '',
          password: body.password ?? '',
          tfa_code: body.tfa_code ?? '',
        },
        req.ip,
        {
          cookie: cookieValue(req, DEVICE_COOKIE),
          userAgent: req.headers['user-agent'] ?? '',
          trust: body.trust_device === 'on' || body.trust_device === 'true',
        },
      );
      if ('page' in r || 'redirect' in r) return notOk(reply, r);
      if (!r.ok) {
        if (r.retryAfter !== undefined) reply.header('retry-after', String(r.retryAfter));
        const client = await authorize.client(q.client_id, publicOrigin(ctx.config, req));
        return html(
          reply,
          r.status,
          signInPage(client?.label ?? '', q, r.message, body.username ?? ''),
          client?.status === 'active' ? client.redirect_uri : undefined,
        );
      }
      if (r.deviceToken)
        reply.header(
          'set-cookie',
          `${DEVICE_COOKIE}=${r.deviceToken}; Path=/oauth; Max-Age=${DEVICE_TTL_MS / 1000}; HttpOnly; SameSite=Lax${req.protocol === 'https' ? '; Secure' : ''}`,
        );
      return html(
        reply,
        200,
        consentPage(r.client.label, r.username, r.req.scopes, r.ticket),
        r.client.redirect_uri,
      );
    });

    app.post('/oauth/consent', async (req, reply) => {
      const body = flat(req.body);
      const to = await authorize.consent(body.ticket ?? '', body.decision === 'approve');
      if (!to)
        return html(
          reply,
          400,
          errorPage('This sign-in has expired. Start again from the application.'),
        );
      return reply.redirect(to, 302);
    });

    app.post('/oauth/token', async (req, reply) =>
      oauthReply(
        reply,
        await tokens.token(flat(req.body), basicAuth(req), publicOrigin(ctx.config, req)),
      ),
    );
    // RFC 7009, and the path the official client library posts to when it logs out.
    for (const path of ['/oauth/revoke', '/oauth/token/expire'])
      app.post(path, async (req, reply) =>
        oauthReply(reply, await tokens.revoke(flat(req.body), basicAuth(req))),
      );
  };
}
