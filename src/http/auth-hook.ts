import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../auth/tokens.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/errors.js';
import { formatScopes, grantsScope } from '../auth/scopes.js';
import { checkRateLimit } from './rate-limit.js';

function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1] ?? '';
}

/**
 * onRequest: resolves the bearer token, enforces the route's declared scopes, counts rate
 * limits (per user) and sets the scope headers. Routes without an operationId (internal, unknown) skip it.
 */
export function authHook(ctx: AppContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const cfg = req.routeOptions.config;
    const operationId = cfg?.operationId;
    if (!operationId) return;
    const mode = cfg.auth ?? 'scopes';
    const required = mode === 'scopes' ? (cfg.scopes ?? []) : [];
    // As the real service sends it: the route's scopes joined by commas, `*` where any token (or
    // none) will do, and the caller's scopes space-separated (`unknown` without a token).
    const accepted = required.length > 0 ? required : (cfg.acceptedScopes ?? ['*']);
    reply.header('X-Accepted-OAuth-Scopes', accepted.join(','));

    const token = bearer(req);
    if (token !== undefined && token !== '') {
      req.principal = await authenticate(ctx.db, token, ctx.clock.nowMs());
    }
    if (req.principal) {
      // Canonical form (space-separated), whatever separators the stored list uses.
      reply.header(
        'X-OAuth-Scopes',
        req.principal.scopesHeader ?? formatScopes(req.principal.scopes),
      );
      reply.header('X-Customer-UUID', req.principal.accountEuuid);
    } else if (mode === 'public') {
      reply.header('X-OAuth-Scopes', 'unknown');
    }
    if (mode !== 'public') {
      if (!req.principal) throw errors.invalidToken();
      if (
        mode === 'scopes' &&
        !required.every((s) =>
          grantsScope(req.principal?.scopes ?? { all: false, areas: new Map() }, s),
        )
      ) {
        throw errors.missingScope();
      }
    }

    if (ctx.config.rateLimits) {
      // Per user, whichever of its tokens calls (reference: "per user"); per address without one.
      const who = req.principal ? `u:${req.principal.userId}` : `ip:${req.ip}`;
      const opClass = cfg.rateLimit ?? (cfg.paged && req.method === 'GET' ? 'paged' : 'operation');
      const d = await checkRateLimit(ctx.rateLimits, who, operationId, opClass, ctx.clock.nowMs());
      reply.header('X-RateLimit-Limit', String(d.limit));
      reply.header('X-RateLimit-Remaining', String(d.remaining));
      reply.header('X-RateLimit-Reset', String(Math.ceil(d.resetMs / 1000)));
      if (d.retryAfterSeconds !== undefined) throw errors.tooManyRequests(d.retryAfterSeconds);
    }
  };
}
