import type { Database } from '../../db/database.js';
import { rowIdOfVersion } from './objects.data.js';
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
    let q = db.db
      .selectFrom('obj_objects')
      .selectAll()
      .where('bucket_id', '=', bucketId)
      .where('is_latest', '=', 1);
    if (prefix !== '') q = q.where('name', '>=', prefix);
    if (cursor !== undefined && (prefix === '' || cursor >= prefix))
      q = q.where('name', '>', cursor);
    const rows = await q.orderBy('name').limit(batch).execute();
    let jumped = false;
    for (const row of rows) {
      if (!row.name.startsWith(prefix)) return { entries, truncated: false, next: undefined };
      // A name whose latest version is a delete marker is not listed.
      if (row.delete_marker === 1) {
        cursor = row.name;
        continue;
      }
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

export interface VersionListOptions {
  prefix?: string;
  delimiter?: string;
  /** List after this name (with `versionIdMarker`: after that version of it). */
  keyMarker?: string;
  versionIdMarker?: string;
  max: number;
}

export interface VersionListing {
  /** Versions and delete markers (newest first within a name) and common prefixes. */
  entries: { name: string; row?: ObjectRow }[];
  truncated: boolean;
  nextKeyMarker: string | undefined;
  nextVersionIdMarker: string | undefined;
}

/**
 * Lists every version of a bucket's objects as ListObjectVersions does: by name (byte order),
 * newest version first within a name, delete markers included, common prefixes rolled up as
 * in `listObjects`. A version id marker that does not exist is answered as S3 does (an error,
 * thrown by the caller's `unknownMarker`).
 */
export async function listVersions(
  db: Database,
  bucketId: number,
  o: VersionListOptions,
  unknownMarker: () => Error,
): Promise<VersionListing> {
  const prefix = o.prefix ?? '';
  const delim = o.delimiter && o.delimiter !== '' ? o.delimiter : undefined;
  const entries: VersionListing['entries'] = [];
  // Position: names after `name`, or the versions of `name` older than `beforeId`.
  let name = o.keyMarker ?? undefined;
  let beforeId: number | undefined;
  if (name !== undefined && name !== '' && o.versionIdMarker) {
    const marker = await db.db
      .selectFrom('obj_objects')
      .select('id')
      .where('bucket_id', '=', bucketId)
      .where('name', '=', name)
      .where('version_id', '=', o.versionIdMarker)
      .executeTakeFirst();
    // A version deleted since it was listed is still a position: its id carries its row's.
    beforeId = marker?.id ?? rowIdOfVersion(o.versionIdMarker);
    if (beforeId === undefined && o.versionIdMarker !== 'null') throw unknownMarker();
  }
  if (name === '') name = undefined;
  if (name !== undefined && delim && name.startsWith(prefix) && name.endsWith(delim) && !beforeId)
    name = pastAll(name);
  const batch = Math.min(Math.max(o.max + 1, 50), 1000);
  let last: ObjectRow | undefined;
  for (;;) {
    let q = db.db.selectFrom('obj_objects').selectAll().where('bucket_id', '=', bucketId);
    if (prefix !== '') q = q.where('name', '>=', prefix);
    if (name !== undefined) {
      const n = name;
      const before = beforeId;
      q =
        before !== undefined
          ? q.where((eb) =>
              eb.or([eb('name', '>', n), eb.and([eb('name', '=', n), eb('id', '<', before)])]),
            )
          : q.where('name', '>', n);
    }
    const rows = await q.orderBy('name').orderBy('id', 'desc').limit(batch).execute();
    let jumped = false;
    for (const row of rows) {
      if (!row.name.startsWith(prefix)) return done(entries, false, last);
      if (entries.length === o.max) return done(entries, true, last);
      const rest = row.name.slice(prefix.length);
      const at = delim ? rest.indexOf(delim) : -1;
      if (delim && at >= 0) {
        const cp = prefix + rest.slice(0, at + delim.length);
        entries.push({ name: cp });
        last = undefined;
        name = pastAll(cp);
        beforeId = undefined;
        jumped = true;
        break;
      }
      entries.push({ name: row.name, row });
      last = row;
      name = row.name;
      beforeId = row.id;
    }
    if (!jumped && rows.length < batch) return done(entries, false, last);
  }
}

function done(
  entries: VersionListing['entries'],
  truncated: boolean,
  last: ObjectRow | undefined,
): VersionListing {
  const tail = entries[entries.length - 1];
  return {
    entries,
    truncated,
    nextKeyMarker: truncated ? tail?.name : undefined,
    nextVersionIdMarker: truncated && last && tail?.row === last ? last.version_id : undefined,
  };
}
