/** Bad paging and X-Filter headers. */
import fc from 'fast-check';

import { oddValue } from './odd.js';

export const PAGING = [
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
