import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, { type RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/build-test-app.js';
import { registerAreas } from '../platform/register-areas.js';
import { nullableAsTypes } from './lazy-compilers.js';
import { Nullable } from './schemas/common.js';
import { Type } from '@sinclair/typebox';

const fjs = createRequire(import.meta.url)('fast-json-stringify') as (
  schema: object,
) => (doc: unknown) => string;

type Schema = Record<string, unknown>;

/** A small deterministic random source (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value for a schema, each `null` branch taken with probability `nulls`. */
function sample(schema: unknown, rnd: () => number, nulls: number, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as Schema;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[Math.floor(rnd() * s.enum.length)];
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    const nonNull = branches.filter((b) => (b as Schema).type !== 'null');
    if (nonNull.length < branches.length && rnd() < nulls) return null;
    return sample(nonNull[Math.floor(rnd() * nonNull.length)], rnd, nulls, depth + 1);
  }
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return rnd() < 0.5;
    case 'integer':
      return Math.floor(rnd() * 1000);
    case 'number':
      return Math.floor(rnd() * 100000) / 100;
    case 'string':
      if (s.format === 'date-time') return new Date(Math.floor(rnd() * 2e12)).toISOString();
      if (s.format === 'date') return '2026-01-02';
      if (s.format === 'ipv4') return '192.0.2.7';
      if (s.format === 'ipv6') return '2001:db8::7';
      if (s.format === 'email') return 'a@example.com';
      if (s.format === 'uri') return 'https://example.com/x';
      return `s${Math.floor(rnd() * 1e6)}`;
    case 'array': {
      if (depth > 8) return [];
      const n = Math.floor(rnd() * 3);
      return Array.from({ length: n }, () => sample(s.items, rnd, nulls, depth + 1));
    }
    default: {
      const out: Record<string, unknown> = {};
      if (depth > 8) return out;
      for (const [k, v] of Object.entries((s.properties ?? {}) as Schema)) {
        out[k] = sample(v, rnd, nulls, depth + 1);
      }
      return out;
    }
  }
}

describe('serializer schemas (src/http/lazy-compilers.ts)', () => {
  it('nullableAsTypes: a nullable field becomes a type list, nested ones too, and the schema given is not changed', () => {
    const schema = Type.Object({
      a: Nullable(Type.String()),
      b: Nullable(Type.Object({ c: Nullable(Type.Integer()) })),
      d: Type.Array(Nullable(Type.Boolean())),
      e: Nullable(Type.Union([Type.Literal('x'), Type.Literal('y')])),
      f: Type.Union([Type.String(), Type.Integer()]),
      g: Type.Unsafe<string | null>({
        anyOf: [{ type: 'string', enum: ['on', 'off'] }, { type: 'null' }],
      }),
    });
    const before = JSON.stringify(schema);
    const out = nullableAsTypes(schema);
    const json = JSON.parse(JSON.stringify(out)) as {
      properties: Record<string, Schema & { properties?: Record<string, Schema>; items?: Schema }>;
    };
    expect(JSON.stringify(schema)).toBe(before);
    expect(json.properties.a).toEqual({ type: ['string', 'null'] });
    expect(json.properties.b?.type).toEqual(['object', 'null']);
    expect(json.properties.b?.properties?.c).toEqual({ type: ['integer', 'null'] });
    expect(json.properties.d?.items).toEqual({ type: ['boolean', 'null'] });
    // An enumeration keeps null among its values: unions around it are still told apart by AJV.
    expect(json.properties.g).toEqual({ type: ['string', 'null'], enum: ['on', 'off', null] });
    // A union of literals and null, and a union of two types, are not one plain type: kept.
    expect(json.properties.e).toHaveProperty('anyOf');
    expect(out.properties.f).toBe(schema.properties.f);
    // The same schema is rewritten once, and a schema without nullable fields is itself.
    expect(nullableAsTypes(schema)).toBe(out);
    const plain = Type.Object({ x: Type.String() });
    expect(nullableAsTypes(plain)).toBe(plain);
  });

  describe('every response schema of every route', () => {
    let t: TestApp;
    const responses: { route: string; status: string; schema: object }[] = [];
    beforeAll(async () => {
      t = await buildTestApp();
      // The areas' routes as declared, in an app that compiles nothing.
      const app = Fastify();
      app.setValidatorCompiler(() => () => true);
      app.setSerializerCompiler(() => (doc) => JSON.stringify(doc));
      app.addHook('onRoute', (route: RouteOptions) => {
        const response = (route.schema as { response?: Record<string, object> } | undefined)
          ?.response;
        for (const [status, schema] of Object.entries(response ?? {})) {
          responses.push({ route: `${String(route.method)} ${route.url}`, status, schema });
        }
      });
      await registerAreas(app as never, t.ctx);
      await app.ready();
      await app.close();
    });
    afterAll(() => t.close());

    it('nullableAsTypes: the serializer writes the same JSON as with the schema as declared, for values the schema allows', () => {
      const ajv = new Ajv({ strict: false, allErrors: false });
      addFormats.default(ajv);
      let compared = 0;
      let rewrittenSchemas = 0;
      const rnd = random(28);
      expect(responses.length).toBeGreaterThan(300);
      for (const { route, status, schema } of responses) {
        const rewritten = nullableAsTypes(schema);
        if (rewritten === schema) continue;
        rewrittenSchemas++;
        const declared = fjs(schema);
        const typed = fjs(rewritten);
        const valid = ajv.compile(schema);
        for (const nulls of [0, 0.5, 1]) {
          for (let i = 0; i < 4; i++) {
            const doc = sample(schema, rnd, nulls);
            if (!valid(doc)) continue;
            compared++;
            expect({ route, status, json: typed(doc) }).toEqual({
              route,
              status,
              json: declared(doc),
            });
          }
        }
      }
      expect(rewrittenSchemas).toBeGreaterThan(100);
      expect(compared).toBeGreaterThan(rewrittenSchemas);
    }, 120_000);
  });
});
