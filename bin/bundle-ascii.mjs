// Part of `npm run build` (bin/build-bundle.mjs): the bundle in ASCII only.
import { transform } from 'esbuild';

// Every UTF-16 code unit above 0x7f (halves of surrogate pairs included).
const NOT_ASCII = /[\u0080-\uffff]/g;

/**
 * esbuild escapes every character outside ASCII in strings, template literals, regular
 * expressions and identifiers (its default `charset: 'ascii'`), but keeps comments as written,
 * and a single `—` in a comment makes V8 hold the whole source (which it keeps for the life of
 * the process, to compile functions lazily) as a two-byte string: 12 MB instead of 6 for the
 * bundle, and as much again for the copy wrapped as a CommonJS function until the next full
 * collection (docs/performance.md, "RSS at scale"). Each character outside ASCII becomes a
 * `\uXXXX` escape (UTF-16 code units): in a comment it is only text. That the program is the same
 * is checked, not assumed: without comments and whitespace (esbuild's `minifyWhitespace`) the
 * code before and after must be the same, or this throws (a raw template string, say, whose text
 * an escape would change).
 */
export async function toAscii(text) {
  NOT_ASCII.lastIndex = 0;
  if (!NOT_ASCII.test(text)) return text;
  const ascii = text.replace(
    NOT_ASCII,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const code = (source) =>
    transform(source, { minifyWhitespace: true, format: 'cjs', legalComments: 'none' }).then(
      (r) => r.code,
    );
  const [before, after] = await Promise.all([code(text), code(ascii)]);
  if (before !== after) {
    throw new Error('a character outside ASCII is part of the code, not of a comment');
  }
  return ascii;
}
