/** Values that follow an operation's JSON schema more or less. */
import fc from 'fast-check';

import type { Known } from './fixtures.js';
import { oddString, oddValue } from './odd.js';
import type { Schema } from './operations.js';

const STRONG = 'c0rrect-Horse-battery-staple!';

/** Plausible values by field name, so that requests get past the first check. */
const BY_NAME: Record<string, unknown[]> = {
  region: ['us-east', 'us-iad', 'nowhere'],
  type: ['g6-nanode-1', 'g6-standard-2'],
  image: ['compute/debian12', 'private/1'],
  root_pass: [STRONG],
  password: [STRONG],
  label: ['fuzz-label', 'a', 'fuzz_label-2'],
  email: ['fuzz@example.com'],
  username: ['fuzzuser2'],
  cluster: ['us-east-1'],
  protocol: ['TCP', 'UDP', 'ICMP', 'http', 'https'],
  ipv4: ['10.0.1.0/24', '192.168.0.1'],
  address: ['192.0.2.1'],
  scopes: ['*', 'compute:read_only'],
  redirect_uri: ['https://example.com/cb'],
  script: ['#!/bin/bash\necho hi'],
  images: [['compute/debian12']],
  tags: [['tag-a']],
  expiry: ['2030-01-01T00:00:00'],
};

function typeOf(s: Schema): string | undefined {
  return Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
}

/** A value following the schema more or less, any position possibly odd. */
export function fromSchema(
  s: Schema,
  name: string,
  known: Known,
  depth = 0,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 5, arbitrary: typed(s, name, known, depth) },
    { weight: 1, arbitrary: oddValue },
  );
}

function typed(s: Schema, name: string, known: Known, depth: number): fc.Arbitrary<unknown> {
  if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.length > 0) return fc.oneof(...alts.map((a) => typed(a, name, known, depth)));
  if (s.allOf && s.allOf.length > 0)
    return typed(Object.assign({}, ...s.allOf), name, known, depth);
  const byName = BY_NAME[name];
  const ids = Object.entries(known)
    .filter(([k]) => k.toLowerCase().startsWith(name.replace(/_?ids?$/, '').toLowerCase()))
    .flatMap(([, v]) => v.map(Number).filter(Number.isInteger));
  switch (typeOf(s)) {
    case 'object': {
      if (depth > 3) return fc.constant({});
      const props = Object.entries(s.properties ?? {});
      const fields = Object.fromEntries(
        props.map(([k, v]) => [k, fromSchema(v, k, known, depth + 1)]),
      );
      const required = (s.required ?? []).filter((k) => k in fields);
      // Half the time every required field is there, so that requests reach the services.
      const rec = fc.oneof(
        fc.record(fields, { requiredKeys: [] }),
        fc.record(fields, { requiredKeys: required }),
      );
      // Sometimes every required field, sometimes an unknown one beside them.
      return fc
        .tuple(rec, fc.option(fc.dictionary(oddString, oddValue, { maxKeys: 2 })))
        .map(([r, extra]) => ({ ...(extra ?? {}), ...r }));
    }
    case 'array':
      return fc.array(fromSchema(s.items ?? {}, name, known, depth + 1), { maxLength: 4 });
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({ min: s.minimum ?? -5, max: Math.min(s.maximum ?? 100_000, 2 ** 31) }),
        ...(ids.length > 0 ? [fc.constantFrom(...ids)] : []),
        fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 - 1),
      );
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.oneof(
        ...(byName ? [fc.constantFrom(...byName)] : []),
        fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 64) }),
        oddString,
      );
    default:
      return byName ? fc.constantFrom(...byName) : oddValue;
  }
}
