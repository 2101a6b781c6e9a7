import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../auth/tokens.js';
import type { Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/errors.js';
import { formatScopes, grantsScope } from '../auth/scopes.js';
import { checkRateLimit, type RateDecision } from './rate-limit.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  return BEARER.exec(h)?.[1] ?? '';
}

/** One step of a route's request gate (src/http/route-gate.ts): a promise only when it waits. */
export type GateStep = (req: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

/**
 * The auth step of a route with an operationId: resolves the bearer token, enforces the route's
 * declared scopes, counts rate limits (per user) and sets the scope headers. What depends only
 * on the route (its mode, required scopes, the `X-Accepted-OAuth-Scopes` value, its rate-limit
 * class) is worked out once, when the route is registered; a token found in the principal cache
 * is answered without a promise.
 */
export function authStep(
  ctx: AppContext,
  cfg: FastifyContextConfig & { operationId: string },
): GateStep {
  const operationId = cfg.operationId;
  const mode = cfg.auth ?? 'scopes';
  const required = mode === 'scopes' ? (cfg.scopes ?? []) : [];
  // As the real service sends it: the route's scopes joined by commas, `*` where any token (or
  // none) will do, and the caller's scopes space-separated (`unknown` without a token).
  const accepted = (required.length > 0 ? required : (cfg.acceptedScopes ?? ['*'])).join(',');
  const pagedClass = cfg.rateLimit ?? (cfg.paged ? 'paged' : 'operation');
  const otherClass = cfg.rateLimit ?? 'operation';

  const rateLimitHeaders = (reply: FastifyReply, d: RateDecision): void => {
    reply.header('x-ratelimit-limit', String(d.limit));
    reply.header('x-ratelimit-remaining', String(d.remaining));
    reply.header('x-ratelimit-reset', String(Math.ceil(d.resetMs / 1000)));
    if (d.retryAfterSeconds !== undefined) throw errors.tooManyRequests(d.retryAfterSeconds);
  };

  /** After the token: scope headers, 401/403, then the rate limits. */
  const withPrincipal = (
    req: FastifyRequest,
    reply: FastifyReply,
    p: Principal | undefined,
  ): void | Promise<void> => {
    if (p) {
      req.principal = p;
      // Canonical form (space-separated), whatever separators the stored list uses.
      reply.header('x-oauth-scopes', p.scopesHeader ?? formatScopes(p.scopes));
      reply.header('x-customer-uuid', p.accountEuuid);
    } else if (mode === 'public') {
      reply.header('x-oauth-scopes', 'unknown');
    }
    if (mode !== 'public') {
      if (!p) throw errors.invalidToken();
      if (mode === 'scopes') {
        for (const s of required) if (!grantsScope(p.scopes, s)) throw errors.missingScope();
      }
    }
    if (!ctx.config.rateLimits) return;
    // Per user, whichever of its tokens calls (reference: "per user"); per address without one.
    const who = p ? `u:${p.userId}` : `ip:${req.ip}`;
    const opClass = req.method === 'GET' ? pagedClass : otherClass;
    const d = checkRateLimit(ctx.rateLimits, who, operationId, opClass, ctx.clock.nowMs());
    if (d instanceof Promise) return d.then((decision) => rateLimitHeaders(reply, decision));
    rateLimitHeaders(reply, d);
  };

  return (req, reply) => {
    reply.header('x-accepted-oauth-scopes', accepted);
    const token = bearer(req);
    if (token === undefined || token === '') return withPrincipal(req, reply, undefined);
    const p = authenticate(ctx.db, token, ctx.clock.nowMs());
    if (p instanceof Promise) return p.then((found) => withPrincipal(req, reply, found));
    return withPrincipal(req, reply, p);
  };
}
