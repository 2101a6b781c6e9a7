import fc from 'fast-check';
import type { Known } from './fixtures.js';
import type { Operation, Param, Schema } from './operations.js';

const STRONG = 'c0rrect-Horse-battery-staple!';

/** Strings that break naive code: NUL, lone surrogates, RTL overrides, emoji, huge, injection. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    'x\uDFFFy',
    '\u202Eevil\u202C',
    '\u200F\u200E',
    '😀🏳️‍🌈👨‍👩‍👧',
    '😀'.repeat(200),
    'a'.repeat(100_000),
    '../../etc/passwd',
    "' OR 1=1 --",
    '%s%n%x',
    '<script>alert(1)</script>',
    '{"a":1}',
    '__proto__',
    'constructor',
    'null',
    '1e309',
    '-0',
    'us-east\n',
    'İı',
    '\t\r\n',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** JSON values of the wrong kind anywhere. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    -0,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    2 ** 31,
    -(2 ** 31) - 1,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  oddString,
  fc.constantFrom([], {}, [null], [[[]]], { '': '' }, { __proto__: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
);

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

/** Percent-encodes any string, lone surrogates included (as the invalid UTF-8 they would be). */
export function encodeSegment(s: string): string {
  let out = '';
  for (const ch of s) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      out += '%ED%A0%80';
    }
  }
  return out;
}

const BAD_IDS = [
  '-1',
  '0',
  '99999999999999999999999',
  '9007199254740993',
  '2147483648',
  'abc',
  '1.5',
  '1e3',
  '0x1f',
  '%20',
  '%00',
  '..',
  '%2e%2e',
  '%F0%9F%98%80',
  '%ED%A0%80',
  '%',
  encodeSegment('a'.repeat(5000)),
];

function pathValue(p: Param, known: Known): fc.Arbitrary<string> {
  const real = known[p.name] ?? [];
  return fc.oneof(
    ...(real.length > 0
      ? [{ weight: 4, arbitrary: fc.constantFrom(...real.map(encodeSegment)) }]
      : []),
    { weight: 2, arbitrary: fc.constantFrom(...BAD_IDS) },
    { weight: 1, arbitrary: oddString.map(encodeSegment) },
    { weight: 1, arbitrary: fc.integer().map(String) },
  );
}

const PAGING = [
  '0',
  '-1',
  '1',
  '2',
  '25',
  '500',
  '501',
  '1000',
  'abc',
  '',
  '1.5',
  '1e2',
  '99999999999999999999',
];

/** X-Filter headers: broken JSON, deep nesting, unknown fields, wrong operators, huge. */
export const filterArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '',
    'null',
    '[]',
    '"x"',
    '1',
    '{"a":',
    '{"+and":"x"}',
    '{"+or":[1,2]}',
    '{"+and":[{"label":{"+gtx":1}}]}',
    '{"label":{"+contains":{}}}',
    '{"id":{"+gt":"abc"}}',
    '{"id":{"+lt":null}}',
    '{"+order_by":"nope","+order":"sideways"}',
    '{"+order_by":"label","+order":"desc"}',
    '{"+order_by":{}}',
    '{"nonexistent_field":1}',
    '{"__proto__":{"x":1}}',
    '{"label":"\\u0000"}',
    '{"label":"\\ud800"}',
    '{"label":[1,2,3]}',
    '{"created":{"+gte":"not a date"}}',
    '{"id":1e400}',
    '{"tags":"x"}',
    '{"label":{"+neq":"a","+contains":"b"}}',
    `{"label":"${'a'.repeat(100_000)}"}`,
  ),
  fc.integer({ min: 1, max: 5000 }).map((n) => `${'{"+and":['.repeat(n)}${']}'.repeat(n)}`),
  fc.integer({ min: 1, max: 5000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .tuple(
      fc.constantFrom('id', 'label', 'region', 'status', 'tags', 'entity.id', 'action', 'x'),
      fc.constantFrom('+gt', '+gte', '+lt', '+lte', '+neq', '+contains', '+bogus', '+or'),
      oddValue,
    )
    .map(([k, o, v]) => JSON.stringify({ [k]: { [o]: v } })),
);

export interface FuzzRequest {
  url: string;
  who: 'admin' | 'restricted' | 'none';
  filter: string | undefined;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown; contentType: string }
    | { kind: 'raw'; text: string | Buffer; contentType: string | undefined };
}

const rawBody = fc.record({
  kind: fc.constant('raw' as const),
  text: fc.oneof(
    fc.constantFrom('{', '{"a":1', '[', 'null', '', '\u0000', '{"a":1}{"b":2}', '1e999999'),
    // Deep nesting and a body past the size limit.
    fc.constantFrom(
      `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
      `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
      `{"label":"${'x'.repeat(3_000_000)}"}`,
    ),
    oddString,
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  ),
  contentType: fc.constantFrom(
    'application/json',
    'text/plain',
    undefined,
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
    'image/png',
  ),
});

/** A request to one operation: odd ids, paging, filters, bodies and tokens. */
export function requestArb(op: Operation, known: Known): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const path = fc.tuple(...pathParams.map((p) => pathValue(p, known))).map((vals) => {
    let url = `/v4${op.path}`;
    pathParams.forEach((p, i) => {
      url = url.replace(`{${p.name}}`, vals[i] as string);
    });
    return url;
  });
  const query = fc
    .tuple(
      fc.option(fc.constantFrom(...PAGING)),
      fc.option(fc.constantFrom(...PAGING)),
      fc.option(fc.tuple(oddString, oddString)),
    )
    .map(([page, size, extra]) => {
      const q: string[] = [];
      if (page !== null) q.push(`page=${encodeSegment(page)}`);
      if (size !== null) q.push(`page_size=${encodeSegment(size)}`);
      if (extra !== null) q.push(`${encodeSegment(extra[0])}=${encodeSegment(extra[1])}`);
      return q.length > 0 ? `?${q.join('&')}` : '';
    });
  const json = op.body
    ? fc.record({
        kind: fc.constant('json' as const),
        value: fromSchema(op.body, '', known),
        contentType: fc.constant('application/json'),
      })
    : undefined;
  const body: fc.Arbitrary<FuzzRequest['body']> = fc.oneof(
    ...(json ? [{ weight: 6, arbitrary: json }] : []),
    { weight: op.body ? 1 : 4, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 1, arbitrary: rawBody },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value: oddValue,
        contentType: fc.constant('application/json'),
      }),
    },
  );
  return fc.record({
    url: fc.tuple(path, query).map(([p, q]) => p + q),
    who: fc.constantFrom('admin', 'admin', 'admin', 'admin', 'admin', 'restricted', 'none'),
    filter: fc.option(filterArb, { nil: undefined, freq: 2 }),
    body,
  });
}
