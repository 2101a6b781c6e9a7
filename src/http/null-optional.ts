import type { FastifyReply, FastifyRequest } from 'fastify';

/** The parts of a JSON schema (TypeBox's output) that decide what `null` means in a body. */
export interface BodySchema {
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, BodySchema>;
  required?: string[];
  items?: BodySchema;
  anyOf?: BodySchema[];
  oneOf?: BodySchema[];
  allOf?: BodySchema[];
}

/** The alternatives of a schema (itself when it is no union). */
function alternatives(s: BodySchema): BodySchema[] {
  const alts = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  return alts.length === 0 ? [s] : alts.flatMap(alternatives);
}

/** Whether `null` is a value of the schema (a real value: clearing a field, "no such thing"). */
export function acceptsNull(s: BodySchema): boolean {
  if (s.nullable === true) return true;
  if (s.anyOf || s.oneOf || s.allOf) return alternatives(s).some(acceptsNull);
  // A schema without a type (Type.Any, Type.Unknown) takes anything, null included.
  if (s.type === undefined) return s.properties === undefined && s.items === undefined;
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'));
}

/**
 * Removes, in place, every key of `value` whose value is `null` where the schema makes the key
 * optional and does not accept null: SDKs send every unset optional field as `null`, and the
 * real service takes that as "not given". A null for a required field, or for a field whose
 * schema accepts null (clearing it), is left for validation and the service.
 */
export function stripNullOptionals(value: unknown, schema: BodySchema): void {
  if (Array.isArray(value)) {
    const items = alternatives(schema).flatMap((a) => (a.items ? [a.items] : []));
    if (items.length === 0) return;
    for (const v of value) for (const it of items) stripNullOptionals(v, it);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const objects = alternatives(schema).filter((a) => a.properties !== undefined);
  if (objects.length === 0) return;
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const props = objects.flatMap((o) => {
      const p = o.properties?.[key];
      return p ? [{ p, required: o.required?.includes(key) === true }] : [];
    });
    if (props.length === 0) continue;
    const v = obj[key];
    if (v === null) {
      if (props.every(({ p, required }) => !required && !acceptsNull(p))) delete obj[key];
      continue;
    }
    if (typeof v === 'object') for (const { p } of props) stripNullOptionals(v, p);
  }
}

/** preValidation of a route with a JSON body: the null rule above (docs/fidelity.md, Platform). */
export function nullOptionalsHook(schema: BodySchema) {
  return (req: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    if (req.body !== null && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) {
      stripNullOptionals(req.body, schema);
    }
    done();
  };
}
