/** Odd values: the wrong kinds, odd Unicode, huge strings, and a percent-encoder for them. */
import fc from 'fast-check';

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
