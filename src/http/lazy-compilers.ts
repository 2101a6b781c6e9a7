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
        serialize ??= compile({ ...route, schema: nullableAsTypes(route.schema) });
        return serialize(doc);
      };
    };
  };
}

type Node = Record<string, unknown>;
const SINGLE_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);
/** Keywords under which a branch is not one plain type (its serialization would differ). */
const NOT_PLAIN = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'const', '$ref'];
const isObject = (x: unknown): x is Node =>
  typeof x === 'object' && x !== null && !Array.isArray(x);
const isNull = (x: unknown) => isObject(x) && x.type === 'null' && Object.keys(x).length === 1;
const isPlain = (x: unknown): x is Node =>
  isObject(x) &&
  typeof x.type === 'string' &&
  SINGLE_TYPES.has(x.type) &&
  !NOT_PLAIN.some((k) => k in x);

const rewritten = new WeakMap<object, unknown>();

/**
 * The schema the serializer compiles: each nullable type (`anyOf: [T, {type: 'null'}]`, what
 * `Nullable` makes, about 300 in the responses) as `type: [T's type, 'null']`. fast-json-stringify
 * serializes an `anyOf` by running an AJV validator of each branch on the value, compiled with the
 * serializer: about 6 times the time to serialize a list of such fields and 4 to 6 times the time
 * to compile it (the first answer of each route). A type list writes the same JSON for every value
 * the schema allows (src/http/lazy-compilers.test.ts); only a value outside it (a string a
 * `format` or `enum` refuses) is written rather than refused. The schema itself, which the OpenAPI
 * documents show, is left as it is: this is a rewritten copy, shared by every route using it.
 */
export function nullableAsTypes<T>(schema: T): T {
  if (typeof schema !== 'object' || schema === null) return schema;
  const done = rewritten.get(schema);
  if (done !== undefined) return done as T;
  let out: unknown = schema;
  if (Array.isArray(schema)) {
    const items = schema.map((x) => nullableAsTypes(x));
    if (items.some((x, i) => x !== schema[i])) out = items;
  } else {
    const node = schema as Node;
    const branches = node.anyOf;
    let base: Node = node;
    if (Array.isArray(branches) && branches.length === 2) {
      const [a, b] = branches;
      const typed = isNull(b) ? a : isNull(a) ? b : undefined;
      if (isPlain(typed)) {
        const { anyOf: _anyOf, ...rest } = node;
        base = { ...rest, ...typed, type: [typed.type, 'null'] };
        // fast-json-stringify still validates the branches of a union around this one with AJV:
        // null stays a value the type allows.
        if (Array.isArray(typed.enum)) base.enum = [...typed.enum, null];
      }
    }
    const changed: Node = {};
    for (const [k, v] of Object.entries(base)) {
      if (typeof v !== 'object' || v === null) continue;
      const r = nullableAsTypes(v);
      if (r !== v) changed[k] = r;
    }
    if (base !== node || Object.keys(changed).length > 0) out = { ...base, ...changed };
  }
  rewritten.set(schema, out);
  return out as T;
}
