import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors/errors.js';

/** PostgreSQL `integer`: every id and most counts are stored as one. */
const MAX = 2_147_483_647;
const MIN = -2_147_483_648;

interface IntSchema {
  type?: string | string[];
  maximum?: number;
  minimum?: number;
  properties?: Record<string, IntSchema>;
  items?: IntSchema;
  anyOf?: IntSchema[];
  oneOf?: IntSchema[];
}

function isInteger(s: IntSchema): boolean {
  return s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer'));
}

/**
 * The dotted path of the first integer in `value` that its schema leaves unbounded and that no
 * `integer` column can hold (an id such as 2147483648 or 9007199254740991), or undefined.
 */
export function outOfRangePath(value: unknown, schema: IntSchema, path = ''): string | undefined {
  if (typeof value === 'number') {
    const unbounded =
      (value > MAX && schema.maximum === undefined) ||
      (value < MIN && schema.minimum === undefined);
    if (
      unbounded &&
      (isInteger(schema) || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(isInteger))
    ) {
      return path;
    }
    return undefined;
  }
  if (Array.isArray(value)) {
    if (!schema.items) return undefined;
    for (const [i, v] of value.entries()) {
      const p = outOfRangePath(v, schema.items, path === '' ? `${i}` : `${path}.${i}`);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const s = schema.properties?.[k];
      if (!s) continue;
      const p = outOfRangePath(v, s, path === '' ? k : `${path}.${k}`);
      if (p !== undefined) return p;
    }
    for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
      const p = outOfRangePath(value, alt, path);
      if (p !== undefined) return p;
    }
  }
  return undefined;
}

/**
 * preValidation of a route with a JSON body: an integer field beyond the `integer` range (where
 * the schema sets no bound of its own) is a 400 naming the field. Without it, an id such as
 * 2147483648 reached PostgreSQL, which refused it with a 500.
 */
export function intRangeHook(schema: IntSchema) {
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const path = outOfRangePath(req.body, schema);
    if (path === undefined) {
      done();
      return;
    }
    const name =
      path
        .split('.')
        .filter((p) => !/^\d+$/.test(p))
        .pop() ?? path;
    done(errors.invalidField(path, `${name} must be between ${MIN} and ${MAX}`));
  };
}
