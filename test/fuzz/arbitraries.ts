import fc from 'fast-check';
import { filterArb, PAGING } from './filters.js';
import type { Known } from './fixtures.js';
import { encodeSegment, oddString, oddValue } from './odd.js';
import type { Operation, Param } from './operations.js';
import { fromSchema } from './schema-values.js';

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
