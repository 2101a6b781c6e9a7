import { s3errors } from './s3.errors.js';
import { rootOf, text } from './s3.xml.js';

export type Tags = Record<string, string>;

/** S3's limits: 10 tags on an object, 50 on a bucket; keys 1–128 characters, values up to 256. */
function checkTags(pairs: [string, string][], max: number): Tags {
  if (pairs.length > max) throw s3errors.invalidTag(`Object tags cannot be greater than ${max}`);
  const out: Tags = {};
  for (const [k, v] of pairs) {
    if ([...k].length < 1 || [...k].length > 128)
      throw s3errors.invalidTag('The TagKey you have provided is too long, max 128');
    if ([...v].length > 256)
      throw s3errors.invalidTag('The TagValue you have provided is too long, max 256');
    if (k in out) throw s3errors.invalidTag('Cannot provide multiple Tags with the same key');
    if (k.toLowerCase().startsWith('aws:'))
      throw s3errors.invalidTag('Your TagKey cannot be prefixed with aws:');
    out[k] = v;
  }
  return out;
}

/** A Tagging document (`<Tagging><TagSet><Tag><Key/><Value/>…`). */
export function parseTagging(body: string, max: number): Tags {
  const doc = rootOf<{ TagSet?: { Tag?: { Key?: unknown; Value?: unknown }[] } | string }>(
    body,
    'Tagging',
  );
  if (doc.TagSet === undefined) throw s3errors.malformedXml();
  const tags = typeof doc.TagSet === 'object' ? (doc.TagSet.Tag ?? []) : [];
  return checkTags(
    tags.map((t) => {
      const k = text(t.Key);
      if (k === undefined) throw s3errors.malformedXml();
      return [k, text(t.Value) ?? ''];
    }),
    max,
  );
}

/** The `x-amz-tagging` header (a URL query string: `k1=v1&k2=v2`). */
export function parseTagHeader(value: string, max = 10): Tags {
  const params = new URLSearchParams(value);
  return checkTags([...params.entries()], max);
}

/** The TagSet element of tags, ordered by key as RGW keeps them (s3-tests compare the order). */
export function tagSet(tags: Tags) {
  const sorted = Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { TagSet: { Tag: sorted.map(([Key, Value]) => ({ Key, Value })) } };
}
