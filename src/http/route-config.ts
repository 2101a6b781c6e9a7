import type { Principal } from '../auth/principal.js';
import type { RouteInfo } from './route-gate.js';

/** Rate-limit classes beyond the general ones (reference §5). */
export type RateLimitClass =
  | 'compute_create'
  | 'volume_create'
  | 'images_list'
  | 'stats'
  | 'object_storage'
  | 'ticket_create'
  | 'transfer_accept';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The reference's operationId: logs, metrics, docs, coverage. */
    operationId?: string;
    /**
     * `public`: no token needed (a valid one is still recognised); `token`: any valid token
     * (the reference's empty scope list); otherwise the scopes listed in `scopes`, all required.
     */
    auth?: 'public' | 'token' | 'scopes';
    scopes?: string[];
    /**
     * What a public route announces in `X-Accepted-OAuth-Scopes` (not required), where the real
     * service names a scope rather than `*`.
     */
    acceptedScopes?: string[];
    /** The collection is paged (200/min class) unless a special class applies. */
    paged?: boolean;
    rateLimit?: RateLimitClass;
    /**
     * `false` on a `/_stratus/` route that the emulator's operator token does not guard: the
     * probes, and services that authenticate their callers themselves (S3 signatures, upload
     * secrets, API tokens).
     */
    operatorToken?: false;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** The route as its request gate recorded it (src/http/route-gate.ts), for the log and metrics. */
    routeInfo: RouteInfo | null;
    /** The operation of a request served outside the API routes (the S3 data plane's, e.g.
     * `s3:GetObject`), for the request log line and metrics. */
    operation?: string;
  }
}
