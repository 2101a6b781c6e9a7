import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { Ajv, ValidateFunction } from 'ajv';

/**
 * Schema compilers that compile on a route's first use rather than at start-up. Every route has a
 * validator per request part and a serializer per status, so compiling them all up front was most
 * of the time to the first answer; a route that is never called now costs nothing, and one that
 * is pays a few milliseconds once.
 */

/**
 * An AJV validator compiled on its first call; Fastify reads `errors` after each call. `ajv` may
 * be a function giving the instance, so that the instance itself is made at the first validation.
 */
export function lazyValidator(ajv: Ajv | (() => Ajv), schema: object) {
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= (typeof ajv === 'function' ? ajv() : ajv).compile(schema);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
}

type Serializer = (doc: unknown) => string;

/** Fastify's own serializer factory (fast-json-stringify), compiling each serializer lazily. */
export function lazySerializerFactory() {
  const base = SerializerSelector();
  return (externalSchemas?: unknown, options?: Parameters<typeof base>[1]) => {
    const compile = base(externalSchemas, options);
    return (route: Parameters<typeof compile>[0]): Serializer => {
      let serialize: Serializer | undefined;
      return (doc) => {
        serialize ??= compile(route);
        return serialize(doc);
      };
    };
  };
}
