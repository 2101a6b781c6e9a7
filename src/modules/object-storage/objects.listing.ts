import type { Database } from '../../db/database.js';
import type { ObjectRow } from './objects.repository.js';

export interface ListOptions {
  prefix?: string;
  delimiter?: string;
  /** List names after this one (a marker, a start-after or a continuation). */
  after?: string;
  max: number;
}

export interface Listing {
  /** Objects and common prefixes, in name order; a prefix entry has no row. */
  entries: { name: string; row?: ObjectRow }[];
  truncated: boolean;
  /** The last entry's name when truncated (the next page's marker). */
  next: string | undefined;
}

/** Greater, in byte order, than every name that starts with `s` (U+10FFFF sorts last). */
const pastAll = (s: string) => `${s}\u{10FFFF}`;

/**
 * Lists a bucket as S3 does: names in byte order (the column sorts in byte order on both
 * engines), names sharing `prefix` + anything + `delimiter` rolled into one common prefix, and
 * common prefixes counted like objects against `max`.
 */
export async function listObjects(
  db: Database,
  bucketId: number,
  o: ListOptions,
): Promise<Listing> {
  const prefix = o.prefix ?? '';
  const delim = o.delimiter && o.delimiter !== '' ? o.delimiter : undefined;
  let cursor = o.after;
  if (cursor !== undefined && delim && cursor.startsWith(prefix) && cursor.endsWith(delim)) {
    cursor = pastAll(cursor);
  }
  const entries: Listing['entries'] = [];
  const batch = Math.min(Math.max(o.max + 1, 50), 1000);
  for (;;) {
    let q = db.db.selectFrom('obj_objects').selectAll().where('bucket_id', '=', bucketId);
    if (prefix !== '') q = q.where('name', '>=', prefix);
    if (cursor !== undefined && (prefix === '' || cursor >= prefix))
      q = q.where('name', '>', cursor);
    const rows = await q.orderBy('name').limit(batch).execute();
    let jumped = false;
    for (const row of rows) {
      if (!row.name.startsWith(prefix)) return { entries, truncated: false, next: undefined };
      if (entries.length === o.max) {
        return { entries, truncated: true, next: entries[entries.length - 1]?.name };
      }
      const rest = row.name.slice(prefix.length);
      const at = delim ? rest.indexOf(delim) : -1;
      if (delim && at >= 0) {
        const cp = prefix + rest.slice(0, at + delim.length);
        entries.push({ name: cp });
        cursor = pastAll(cp);
        jumped = true;
        break;
      }
      entries.push({ name: row.name, row });
      cursor = row.name;
    }
    if (!jumped && rows.length < batch) return { entries, truncated: false, next: undefined };
  }
}
