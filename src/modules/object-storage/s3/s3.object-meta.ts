import type { Updateable } from 'kysely';
import { type BucketRow, findLatest, findVersion, type ObjectRow } from '../objects.repository.js';
import type { ObjObjectsTable } from '../objects.table.js';
import { authorize, versionedAction } from './s3.access.js';
import type { Permission } from './s3.acl.js';
import type { S3Env } from './s3.buckets.js';
import { type S3Call, send, smallBody } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import {
  bypassGovernance,
  checkRetentionChange,
  parseLegalHold,
  parseRetention,
} from './s3.lock.js';
import { versionIdOf } from './s3.objects.js';
import { parseTagging, tagSet } from './s3.tags.js';
import { xml } from './s3.xml.js';

/** What S3 keeps beside an object's bytes, per version: tags, retention, legal hold. */
export class S3ObjectMeta {
  constructor(private readonly e: S3Env) {}

  /** The version named (or the latest), not a delete marker, with the caller allowed to act. */
  private async target(
    c: S3Call,
    b: BucketRow,
    action: string,
    permission: Permission,
    on: 'object' | 'bucket',
    write: boolean,
  ): Promise<ObjectRow> {
    const key = c.key as string;
    const versionId = versionIdOf(c);
    const row = versionId
      ? await findVersion(this.e.db, b.id, key, versionId)
      : await findLatest(this.e.db, b.id, key);
    await authorize(
      c,
      {
        action: versionId ? versionedAction(action) : action,
        bucket: b,
        key,
        ...(row && row.delete_marker === 0 ? { object: row } : {}),
        acl: { on, permission },
        write,
      },
      this.e.accounts,
    );
    if (!row || row.delete_marker === 1) {
      if (versionId) throw s3errors.noSuchVersion(key, versionId);
      throw s3errors.noSuchKey(key);
    }
    return row;
  }

  private async set(row: ObjectRow, values: Updateable<ObjObjectsTable>): Promise<void> {
    await this.e.db.db.updateTable('obj_objects').set(values).where('id', '=', row.id).execute();
  }

  private versionHeader(b: BucketRow, row: ObjectRow): Record<string, string> {
    return b.versioning !== null ? { 'x-amz-version-id': row.version_id } : {};
  }

  async getTags(c: S3Call, b: BucketRow): Promise<void> {
    const row = await this.target(c, b, 's3:GetObjectTagging', 'READ', 'object', false);
    const tags = row.tags ? (JSON.parse(row.tags) as Record<string, string>) : {};
    send(c, 200, xml('Tagging', tagSet(tags)), this.versionHeader(b, row));
  }

  /** PutObjectTagging replaces the version's tags (10 at most). */
  async putTags(c: S3Call, b: BucketRow): Promise<void> {
    const row = await this.target(c, b, 's3:PutObjectTagging', 'WRITE', 'bucket', true);
    const tags = parseTagging(await smallBody(c), 10);
    await this.set(row, { tags: Object.keys(tags).length > 0 ? JSON.stringify(tags) : null });
    send(c, 200, undefined, this.versionHeader(b, row));
  }

  async deleteTags(c: S3Call, b: BucketRow): Promise<void> {
    const row = await this.target(c, b, 's3:DeleteObjectTagging', 'WRITE', 'bucket', true);
    await this.set(row, { tags: null });
    send(c, 204, undefined, this.versionHeader(b, row));
  }

  private requireLock(b: BucketRow): void {
    if (b.object_lock !== 1)
      throw s3errors.invalidRequest('Bucket is missing Object Lock Configuration');
  }

  async getRetention(c: S3Call, b: BucketRow): Promise<void> {
    this.requireLock(b);
    const row = await this.target(c, b, 's3:GetObjectRetention', 'READ', 'object', false);
    if (!row.lock_mode || !row.lock_until)
      throw s3errors.noSuchConfig(
        'NoSuchObjectLockConfiguration',
        'The specified object does not have a ObjectLock configuration',
        b.label,
      );
    send(c, 200, xml('Retention', { Mode: row.lock_mode, RetainUntilDate: row.lock_until }));
  }

  /**
   * PutObjectRetention: a mode and a date. COMPLIANCE only lengthens; GOVERNANCE is shortened,
   * removed or changed only with the bypass header, by a caller allowed to bypass.
   */
  async putRetention(c: S3Call, b: BucketRow): Promise<void> {
    this.requireLock(b);
    const row = await this.target(c, b, 's3:PutObjectRetention', 'WRITE', 'bucket', true);
    const next = parseRetention(await smallBody(c), c.nowMs);
    let bypass = false;
    if (bypassGovernance(c)) {
      try {
        await authorize(
          c,
          {
            action: 's3:BypassGovernanceRetention',
            bucket: b,
            key: row.name,
            acl: { on: 'owner' },
            write: true,
          },
          this.e.accounts,
        );
        bypass = true;
      } catch {
        bypass = false;
      }
    }
    checkRetentionChange(row, next, c.nowMs, bypass);
    await this.set(row, { lock_mode: next?.mode ?? null, lock_until: next?.until ?? null });
    send(c, 200);
  }

  async getLegalHold(c: S3Call, b: BucketRow): Promise<void> {
    this.requireLock(b);
    const row = await this.target(c, b, 's3:GetObjectLegalHold', 'READ', 'object', false);
    send(c, 200, xml('LegalHold', { Status: row.legal_hold === 1 ? 'ON' : 'OFF' }));
  }

  async putLegalHold(c: S3Call, b: BucketRow): Promise<void> {
    this.requireLock(b);
    const row = await this.target(c, b, 's3:PutObjectLegalHold', 'WRITE', 'bucket', true);
    const on = parseLegalHold(await smallBody(c));
    await this.set(row, { legal_hold: on ? 1 : 0 });
    send(c, 200);
  }
}
