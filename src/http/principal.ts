import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { errors } from '../errors/errors.js';

/** The authenticated caller of a route that requires a token. */
export function principal(req: FastifyRequest): Principal {
  if (!req.principal) throw errors.invalidToken();
  return req.principal;
}

export function xFilter(req: FastifyRequest): string | string[] | undefined {
  return req.headers['x-filter'];
}
