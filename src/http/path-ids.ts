import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errors } from '../errors/errors.js';

/** The largest id any table hands out (PostgreSQL `integer`), so no id overflows a query. */
const MAX_ID = 2_147_483_647;
const CANONICAL = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * The one parser of integer path ids: canonical decimal digits only (no sign, space, exponent,
 * fraction, hex or leading zero) and within the id range. Anything else names no resource: 404.
 * Without it, AJV's coercion would read `%201`, `1e0`, `0x1`, `+1`, `1.0` and `01` all as 1.
 */
export function isCanonicalId(text: string): boolean {
  return CANONICAL.test(text) && Number(text) <= MAX_ID;
}

/** The names of a route's integer path parameters, from its params schema. */
export function integerParams(route: RouteOptions): string[] {
  const params = (route.schema as { params?: { properties?: Record<string, { type?: unknown }> } })
    ?.params;
  return Object.entries(params?.properties ?? {})
    .filter(([, s]) => s.type === 'integer')
    .map(([name]) => name);
}

/** A preValidation hook (before AJV coerces the text) that answers 404 for a loose id. */
export function canonicalIdsHook(names: readonly string[]) {
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const params = req.params as Record<string, string | undefined>;
    for (const name of names) {
      const v = params[name];
      if (v === undefined || !isCanonicalId(v)) {
        done(errors.notFound());
        return;
      }
    }
    done();
  };
}
