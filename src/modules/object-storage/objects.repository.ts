import type { Selectable } from 'kysely';
import type { Database } from '../../db/database.js';
import type { BlobRef, ObjBucketsTable, ObjObjectsTable } from './objects.table.js';

export type BucketRow = Selectable<ObjBucketsTable>;
export type ObjectRow = Selectable<ObjObjectsTable>;

export async function findBucket(
  db: Database,
  cluster: string,
  label: string,
  lock = false,
): Promise<BucketRow | undefined> {
  const q = db.db
    .selectFrom('obj_buckets')
    .selectAll()
    .where('cluster', '=', cluster)
    .where('label', '=', label);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** The current object of a name: its latest version, unless that is a delete marker. */
export async function findObject(
  db: Database,
  bucketId: number,
  name: string,
): Promise<ObjectRow | undefined> {
  const row = await findLatest(db, bucketId, name);
  return row && row.delete_marker === 0 ? row : undefined;
}

/** The latest version of a name (a delete marker too), or undefined. */
export async function findLatest(
  db: Database,
  bucketId: number,
  name: string,
): Promise<ObjectRow | undefined> {
  return db.db
    .selectFrom('obj_objects')
    .selectAll()
    .where('bucket_id', '=', bucketId)
    .where('is_latest', '=', 1)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** One version of a name ('null' for the null version), or undefined. */
export async function findVersion(
  db: Database,
  bucketId: number,
  name: string,
  versionId: string,
): Promise<ObjectRow | undefined> {
  return db.db
    .selectFrom('obj_objects')
    .selectAll()
    .where('bucket_id', '=', bucketId)
    .where('name', '=', name)
    .where('version_id', '=', versionId)
    .executeTakeFirst();
}

export function blobsOf(row: { blobs: string }): BlobRef[] {
  return JSON.parse(row.blobs) as BlobRef[];
}

/** `YYYY-MM` of a time in ms (UTC). */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Adds bytes to an account's transfer of the month and to the bucket's counters. */
export async function countTransfer(
  db: Database,
  accountId: number,
  bucketId: number | null,
  month: string,
  dir: 'bytes_in' | 'bytes_out',
  bytes: number,
): Promise<void> {
  if (bytes <= 0) return;
  await db.db
    .insertInto('obj_transfer')
    .values({ account_id: accountId, month, [dir]: bytes })
    .onConflict((oc) =>
      oc.columns(['account_id', 'month']).doUpdateSet((eb) => ({
        [dir]: eb(`obj_transfer.${dir}`, '+', bytes),
      })),
    )
    .execute();
  if (bucketId !== null) {
    await db.db
      .updateTable('obj_buckets')
      .set((eb) => ({ [dir]: eb(dir, '+', bytes) }))
      .where('id', '=', bucketId)
      .execute();
  }
}

/** Stored bytes and transfer per bucket of an account (billing reads this). */
export async function bucketUsage(db: Database, accountId: number) {
  const rows = await db.db
    .selectFrom('obj_buckets')
    .select(['id', 'cluster', 'label', 'size', 'objects', 'bytes_in', 'bytes_out'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    ...r,
    size: Number(r.size),
    bytes_in: Number(r.bytes_in),
    bytes_out: Number(r.bytes_out),
  }));
}

/** A deleted bucket's name is no longer granted to the account's keys (a new bucket of that
 * name starts with no key access). */
export async function dropKeyAccess(
  db: Database,
  accountId: number,
  buckets: { cluster: string; label: string }[],
): Promise<void> {
  for (const b of buckets) {
    await db.db
      .deleteFrom('obj_key_buckets')
      .where('cluster', '=', b.cluster)
      .where('bucket_name', '=', b.label)
      .where('key_id', 'in', (eb) =>
        eb.selectFrom('obj_keys').select('id').where('account_id', '=', accountId),
      )
      .execute();
  }
}
