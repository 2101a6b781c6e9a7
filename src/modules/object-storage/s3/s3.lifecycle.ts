import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../../db/database.js';
import { defineJob } from '../../../jobs/job.js';
import type { JobQueue } from '../../../jobs/queue.js';
import { ObjectData } from '../objects.data.js';
import type { BucketRow, ObjectRow } from '../objects.repository.js';
import { msOf } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { lockBlocksDelete } from './s3.lock.js';
import type { Tags } from './s3.tags.js';
import { rootOf, text } from './s3.xml.js';

const DAY_MS = 86_400_000;

/** What a rule applies to: a key prefix, tags (all of them), object size bounds. */
export interface LifecycleFilter {
  prefix?: string;
  tags?: Tags;
  sizeGreaterThan?: number;
  sizeLessThan?: number;
}

/** One lifecycle rule, as PutBucketLifecycleConfiguration stores it. */
export interface LifecycleRule {
  id: string;
  enabled: boolean;
  /** Written as the old `<Prefix>` directly under the rule (PutBucketLifecycle). */
  legacyPrefix?: string;
  filter?: LifecycleFilter;
  expiration?: { days?: number; date?: string; expiredObjectDeleteMarker?: boolean };
  noncurrent?: { days: number; newer?: number };
  abortMultipartDays?: number;
}

interface FilterXml {
  Prefix?: unknown;
  Tag?: { Key?: unknown; Value?: unknown }[];
  ObjectSizeGreaterThan?: unknown;
  ObjectSizeLessThan?: unknown;
  And?: FilterXml[];
}

interface RuleXml {
  ID?: unknown;
  Status?: unknown;
  Prefix?: unknown;
  Filter?: FilterXml | string;
  Expiration?: { Days?: unknown; Date?: unknown; ExpiredObjectDeleteMarker?: unknown };
  NoncurrentVersionExpiration?: { NoncurrentDays?: unknown; NewerNoncurrentVersions?: unknown };
  AbortIncompleteMultipartUpload?: { DaysAfterInitiation?: unknown };
  Transition?: unknown;
  NoncurrentVersionTransition?: unknown;
}

/** A positive whole number of days (or versions), or InvalidArgument. */
function positive(v: unknown, what: string, allowZero = false): number {
  const s = text(v);
  if (s === undefined || !/^-?\d+$/.test(s)) throw s3errors.malformedXml();
  const n = Number(s);
  if (n < (allowZero ? 0 : 1))
    throw s3errors.invalidArgument(`'${what}' for the lifecycle rule must be a positive integer`);
  return n;
}

function parseFilter(f: FilterXml): LifecycleFilter {
  const out: LifecycleFilter = {};
  const parts = f.And?.[0] ?? f;
  if (f.And && (f.Prefix !== undefined || f.Tag !== undefined)) throw s3errors.malformedXml();
  const prefix = text(parts.Prefix);
  if (prefix !== undefined) out.prefix = prefix;
  if (parts.Tag && parts.Tag.length > 0) {
    if (!f.And && parts.Tag.length > 1) throw s3errors.malformedXml();
    const tags: Tags = {};
    for (const t of parts.Tag) {
      const k = text(t.Key);
      if (k === undefined) throw s3errors.malformedXml();
      if (k in tags) throw s3errors.invalidArgument('Duplicate Tag Keys are not allowed.');
      tags[k] = text(t.Value) ?? '';
    }
    out.tags = tags;
  }
  if (parts.ObjectSizeGreaterThan !== undefined)
    out.sizeGreaterThan = positive(parts.ObjectSizeGreaterThan, 'ObjectSizeGreaterThan', true);
  if (parts.ObjectSizeLessThan !== undefined)
    out.sizeLessThan = positive(parts.ObjectSizeLessThan, 'ObjectSizeLessThan');
  if (!f.And && Object.keys(out).length > 1) throw s3errors.malformedXml();
  return out;
}

/**
 * Parses a LifecycleConfiguration document: up to 1000 rules with unique IDs (255 characters at
 * most; a missing one is drawn), a Status, a filter (the old `Prefix`, or `Filter` with a prefix,
 * a tag, sizes or `And`), and at least one action: Expiration (Days, Date at midnight UTC, or
 * ExpiredObjectDeleteMarker), NoncurrentVersionExpiration, AbortIncompleteMultipartUpload.
 * Transitions to other storage classes are refused (only STANDARD exists).
 */
export function parseLifecycle(body: string): LifecycleRule[] {
  const doc = rootOf<{ Rule?: RuleXml[] }>(body, 'LifecycleConfiguration');
  const rules = doc.Rule ?? [];
  if (rules.length === 0 || rules.length > 1000) throw s3errors.malformedXml();
  const ids = new Set<string>();
  return rules.map((r) => {
    const id = text(r.ID) || randomBytes(16).toString('hex');
    if (id.length > 255)
      throw s3errors.invalidArgument('ID length should not exceed allowed limit of 255');
    if (ids.has(id))
      throw s3errors.invalidArgument(
        'Rule ID must be unique. Found same ID for more than one rule',
      );
    ids.add(id);
    const status = text(r.Status);
    if (status !== 'Enabled' && status !== 'Disabled') throw s3errors.malformedXml();
    if (r.Transition !== undefined || r.NoncurrentVersionTransition !== undefined)
      throw s3errors.invalidStorageClass();
    if (r.Prefix !== undefined && r.Filter !== undefined) throw s3errors.malformedXml();
    const rule: LifecycleRule = { id, enabled: status === 'Enabled' };
    if (r.Prefix !== undefined) rule.legacyPrefix = text(r.Prefix) ?? '';
    if (r.Filter !== undefined)
      rule.filter = typeof r.Filter === 'object' ? parseFilter(r.Filter) : {};
    if (r.Expiration !== undefined) {
      const e = r.Expiration;
      const given = [e.Days, e.Date, e.ExpiredObjectDeleteMarker].filter((x) => x !== undefined);
      if (given.length !== 1) throw s3errors.malformedXml();
      if (e.Days !== undefined) rule.expiration = { days: positive(e.Days, 'Days') };
      if (e.Date !== undefined) {
        const d = text(e.Date) ?? '';
        const ms = Date.parse(d);
        if (Number.isNaN(ms) || ms % DAY_MS !== 0)
          throw s3errors.invalidArgument("'Date' must be at midnight GMT");
        rule.expiration = { date: new Date(ms).toISOString().replace('.000Z', 'Z') };
      }
      if (e.ExpiredObjectDeleteMarker !== undefined) {
        const v = text(e.ExpiredObjectDeleteMarker);
        if (v !== 'true' && v !== 'false') throw s3errors.malformedXml();
        rule.expiration = { expiredObjectDeleteMarker: v === 'true' };
      }
    }
    if (r.NoncurrentVersionExpiration !== undefined) {
      const n = r.NoncurrentVersionExpiration;
      rule.noncurrent = {
        days: positive(n.NoncurrentDays, 'NoncurrentDays'),
        ...(n.NewerNoncurrentVersions !== undefined
          ? { newer: positive(n.NewerNoncurrentVersions, 'NewerNoncurrentVersions') }
          : {}),
      };
    }
    if (r.AbortIncompleteMultipartUpload !== undefined) {
      if (rule.filter?.tags)
        throw s3errors.invalidRequest(
          'AbortIncompleteMultipartUpload cannot be specified with Tags.',
        );
      rule.abortMultipartDays = positive(
        r.AbortIncompleteMultipartUpload.DaysAfterInitiation,
        'DaysAfterInitiation',
      );
    }
    if (!rule.expiration && !rule.noncurrent && rule.abortMultipartDays === undefined)
      throw s3errors.malformedXml();
    return rule;
  });
}

function filterElement(f: LifecycleFilter) {
  const parts: Record<string, unknown>[] = [];
  if (f.prefix !== undefined) parts.push({ Prefix: f.prefix });
  for (const [Key, Value] of Object.entries(f.tags ?? {})) parts.push({ Tag: { Key, Value } });
  if (f.sizeGreaterThan !== undefined) parts.push({ ObjectSizeGreaterThan: f.sizeGreaterThan });
  if (f.sizeLessThan !== undefined) parts.push({ ObjectSizeLessThan: f.sizeLessThan });
  if (parts.length === 0) return {};
  if (parts.length === 1) return parts[0] as Record<string, unknown>;
  const and: Record<string, unknown> = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      if (k === 'Tag') and.Tag = [...((and.Tag as unknown[]) ?? []), v];
      else and[k] = v;
    }
  }
  return { And: and };
}

/** The LifecycleConfiguration document of rules. */
export function lifecycleDocument(rules: LifecycleRule[]) {
  return {
    Rule: rules.map((r) => ({
      ID: r.id,
      ...(r.legacyPrefix !== undefined ? { Prefix: r.legacyPrefix } : {}),
      ...(r.filter !== undefined ? { Filter: filterElement(r.filter) } : {}),
      Status: r.enabled ? 'Enabled' : 'Disabled',
      ...(r.expiration
        ? {
            Expiration: {
              ...(r.expiration.days !== undefined ? { Days: r.expiration.days } : {}),
              ...(r.expiration.date !== undefined ? { Date: r.expiration.date } : {}),
              ...(r.expiration.expiredObjectDeleteMarker !== undefined
                ? { ExpiredObjectDeleteMarker: r.expiration.expiredObjectDeleteMarker }
                : {}),
            },
          }
        : {}),
      ...(r.noncurrent
        ? {
            NoncurrentVersionExpiration: {
              NoncurrentDays: r.noncurrent.days,
              ...(r.noncurrent.newer !== undefined
                ? { NewerNoncurrentVersions: r.noncurrent.newer }
                : {}),
            },
          }
        : {}),
      ...(r.abortMultipartDays !== undefined
        ? { AbortIncompleteMultipartUpload: { DaysAfterInitiation: r.abortMultipartDays } }
        : {}),
    })),
  };
}

/** S3 rounds an expiry up to the next midnight UTC. */
export const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;
/** The next midnight UTC strictly after `ms`. */
export const nextMidnight = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;

const prefixOf = (r: LifecycleRule) => r.legacyPrefix ?? r.filter?.prefix ?? '';

function matches(r: LifecycleRule, row: ObjectRow): boolean {
  if (!row.name.startsWith(prefixOf(r))) return false;
  const f = r.filter;
  if (!f) return true;
  if (f.tags) {
    const have = row.tags ? (JSON.parse(row.tags) as Tags) : {};
    if (!Object.entries(f.tags).every(([k, v]) => have[k] === v)) return false;
  }
  const size = Number(row.size);
  if (f.sizeGreaterThan !== undefined && !(size > f.sizeGreaterThan)) return false;
  if (f.sizeLessThan !== undefined && !(size < f.sizeLessThan)) return false;
  return true;
}

/** The rows of a bucket under a prefix, each name's versions newest first. */
async function versionsUnder(db: Database, bucketId: number, prefix: string) {
  let q = db.db.selectFrom('obj_objects').selectAll().where('bucket_id', '=', bucketId);
  if (prefix !== '') q = q.where('name', '>=', prefix);
  const rows = await q.orderBy('name').orderBy('id', 'desc').execute();
  const byName = new Map<string, ObjectRow[]>();
  for (const row of rows) {
    if (!row.name.startsWith(prefix)) continue;
    const list = byName.get(row.name) ?? [];
    list.push(row);
    byName.set(row.name, list);
  }
  return byName;
}

/**
 * Applies a bucket's enabled rules at `nowMs`, as S3's daily lifecycle pass does: current
 * versions past their expiry are deleted (a delete marker where versioning is on); delete
 * markers left alone are removed; noncurrent versions past their days (beyond the newest
 * `NewerNoncurrentVersions`) are removed, unless object lock retains them; multipart uploads
 * older than their days are aborted. Returns how many versions and uploads it removed or marked.
 */
export async function applyLifecycle(
  db: Database,
  data: ObjectData,
  bucket: BucketRow,
  rules: LifecycleRule[],
  nowMs: number,
): Promise<number> {
  let n = 0;
  for (const r of rules.filter((x) => x.enabled)) {
    const versions = await versionsUnder(db, bucket.id, prefixOf(r));
    for (const [name, list] of versions) {
      const latest = list[0];
      if (!latest) continue;
      const e = r.expiration;
      if (e && (e.days !== undefined || e.date !== undefined) && latest.delete_marker === 0) {
        const due =
          e.days !== undefined
            ? ceilDay(msOf(latest.last_modified) + e.days * DAY_MS)
            : Date.parse(e.date as string);
        if (
          matches(r, latest) &&
          due <= nowMs &&
          !(bucket.versioning === null && lockBlocksDelete(latest, nowMs, false))
        ) {
          await data.remove(bucket, name, { db });
          n++;
          continue;
        }
      }
      if (e?.expiredObjectDeleteMarker && latest.delete_marker === 1 && list.length === 1) {
        if (name.startsWith(prefixOf(r))) {
          await data.remove(bucket, name, { versionId: latest.version_id, db });
          n++;
          continue;
        }
      }
      if (r.noncurrent) {
        let kept = 0;
        for (let i = 1; i < list.length; i++) {
          const row = list[i] as ObjectRow;
          const successor = list[i - 1] as ObjectRow;
          if (row.delete_marker === 0 && !matches(r, row)) continue;
          if (r.noncurrent.newer !== undefined && kept < r.noncurrent.newer) {
            kept++;
            continue;
          }
          const due = ceilDay(msOf(successor.last_modified) + r.noncurrent.days * DAY_MS);
          if (due > nowMs || lockBlocksDelete(row, nowMs, false)) continue;
          await data.remove(bucket, name, { versionId: row.version_id, db });
          n++;
        }
      }
    }
    if (r.abortMultipartDays !== undefined) {
      const uploads = await db.db
        .selectFrom('obj_uploads')
        .select(['id', 'name', 'created'])
        .where('bucket_id', '=', bucket.id)
        .where('completed', 'is', null)
        .execute();
      for (const u of uploads) {
        if (!u.name.startsWith(prefixOf(r))) continue;
        if (ceilDay(msOf(u.created) + r.abortMultipartDays * DAY_MS) > nowMs) continue;
        const parts = await db.db
          .selectFrom('obj_parts')
          .select('blob')
          .where('upload_id', '=', u.id)
          .execute();
        await db.db.deleteFrom('obj_uploads').where('id', '=', u.id).execute();
        const blobs = parts.map((p) => p.blob);
        db.onCommit(() => data.dropBlobs(blobs));
        n++;
      }
    }
  }
  return n;
}

export const LIFECYCLE_JOB = 'object_storage.lifecycle';
/** The jobs table's entity of a bucket's lifecycle schedule. */
export const LIFECYCLE_ENTITY = 'object_storage_bucket';

/** Queues the bucket's daily lifecycle pass (the next midnight UTC), unless one is queued. */
export async function scheduleLifecycle(
  db: Database,
  queue: JobQueue,
  bucket: BucketRow,
  nowMs: number,
): Promise<void> {
  if (await queue.hasActive(db, LIFECYCLE_ENTITY, bucket.id)) return;
  await queue.enqueue(
    db,
    lifecycleJob,
    { bucketId: bucket.id },
    {
      delayMs: nextMidnight(nowMs) - nowMs,
      accountId: bucket.account_id,
      entity: { type: LIFECYCLE_ENTITY, id: bucket.id },
    },
  );
}

/**
 * A bucket's lifecycle, on the job clock: every day at 00:00 UTC it applies the bucket's rules,
 * then queues itself for the next midnight. It ends when the bucket or its rules are gone.
 */
export const lifecycleJob = defineJob<{ bucketId: number }>({
  name: LIFECYCLE_JOB,
  version: 1,
  payload: Type.Object({ bucketId: Type.Number() }),
  maxAttempts: 5,
  recurring: true,
  async handle(ctx, p) {
    const bucket = await ctx.db.db
      .selectFrom('obj_buckets')
      .selectAll()
      .where('id', '=', p.bucketId)
      .executeTakeFirst();
    if (!bucket?.lifecycle) return undefined;
    if (!ctx.blobs) throw new Error('the lifecycle job needs the blob stores');
    const data = new ObjectData(ctx.db, ctx.blobs('objects'), ctx.clock);
    const now = ctx.clock.nowMs();
    const n = await applyLifecycle(
      ctx.db,
      data,
      bucket,
      JSON.parse(bucket.lifecycle) as LifecycleRule[],
      now,
    );
    if (n > 0) ctx.log.info({ bucketId: bucket.id, removed: n }, 'lifecycle rules applied');
    return { next: p, delayMs: nextMidnight(now) - now };
  },
});
