import type { Updateable } from 'kysely';
import type { BucketRow } from '../objects.repository.js';
import type { ObjBucketsTable } from '../objects.table.js';
import { authorize } from './s3.access.js';
import type { S3Env } from './s3.buckets.js';
import { type S3Call, send, sendText, smallBody } from './s3.context.js';
import { corsDocument, corsRules, parseCors } from './s3.cors.js';
import { s3errors } from './s3.errors.js';
import {
  type LifecycleRule,
  lifecycleDocument,
  parseLifecycle,
  scheduleLifecycle,
} from './s3.lifecycle.js';
import { lockConfigDocument, parseLockConfig } from './s3.lock.js';
import { parsePolicy } from './s3.policy.js';
import { parseTagging, tagSet } from './s3.tags.js';
import { parseWebsite, websiteDocument, type WebsiteConfig } from './s3.website-config.js';
import { rootOf, text, xml } from './s3.xml.js';

/**
 * A bucket's S3 configurations: versioning, policy, CORS, lifecycle, website, tags and object
 * lock. Each is the bucket owner's (or granted by the bucket policy); reading one that was never
 * set is the 404 S3 answers for it.
 */
export class S3BucketConfig {
  constructor(private readonly e: S3Env) {}

  private async owner(c: S3Call, b: BucketRow, action: string, write: boolean): Promise<void> {
    await authorize(c, { action, bucket: b, acl: { on: 'owner' }, write }, this.e.accounts);
  }

  private async set(b: BucketRow, values: Updateable<ObjBucketsTable>): Promise<void> {
    await this.e.db.db.updateTable('obj_buckets').set(values).where('id', '=', b.id).execute();
  }

  /** GetBucketVersioning: the status once versioning was ever set (none before). */
  async getVersioning(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketVersioning', false);
    send(c, 200, xml('VersioningConfiguration', b.versioning ? { Status: b.versioning } : {}));
  }

  /**
   * PutBucketVersioning: Enabled or Suspended. MFA delete is refused by name (not implemented);
   * an object-lock bucket cannot be suspended.
   */
  async putVersioning(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketVersioning', true);
    const doc = rootOf<{ Status?: unknown; MfaDelete?: unknown }>(
      await smallBody(c),
      'VersioningConfiguration',
    );
    const status = text(doc.Status);
    const mfa = text(doc.MfaDelete);
    if (mfa !== undefined && mfa !== 'Disabled') {
      if (mfa !== 'Enabled') throw s3errors.malformedXml();
      throw s3errors.headerNotImplemented('MfaDelete', 'MFA delete');
    }
    if (status === undefined) {
      send(c, 200);
      return;
    }
    if (status !== 'Enabled' && status !== 'Suspended') throw s3errors.malformedXml();
    if (status === 'Suspended' && b.object_lock === 1)
      throw s3errors.invalidBucketState(
        'An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.',
      );
    // Suspending a bucket that never had versioning shows it Suspended (RGW, s3-tests).
    await this.set(b, { versioning: status });
    send(c, 200);
  }

  async getPolicy(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketPolicy', false);
    if (!b.policy)
      throw s3errors.noSuchConfig(
        'NoSuchBucketPolicy',
        'The bucket policy does not exist',
        b.label,
      );
    sendText(c, 200, b.policy, 'application/json');
  }

  async putPolicy(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketPolicy', true);
    const body = await smallBody(c, 20 * 1024);
    parsePolicy(body, b.label);
    await this.set(b, { policy: body });
    send(c, 204);
  }

  async deletePolicy(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:DeleteBucketPolicy', true);
    await this.set(b, { policy: null });
    send(c, 204);
  }

  /** GetBucketCors: the stored rules (or the control plane's all-origins rule). */
  async getCors(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketCORS', false);
    const rules = corsRules(b);
    if (rules.length === 0)
      throw s3errors.noSuchConfig(
        'NoSuchCORSConfiguration',
        'The CORS configuration does not exist',
        b.label,
      );
    send(c, 200, xml('CORSConfiguration', corsDocument(rules)));
  }

  /** PutBucketCors stores the rules and turns CORS on (`cors_enabled` of the control plane). */
  async putCors(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketCORS', true);
    const rules = parseCors(await smallBody(c, 64 * 1024));
    await this.set(b, { cors: JSON.stringify(rules), cors_enabled: 1 });
    send(c, 200);
  }

  async deleteCors(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketCORS', true);
    await this.set(b, { cors: null, cors_enabled: 0 });
    send(c, 204);
  }

  async getLifecycle(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetLifecycleConfiguration', false);
    if (!b.lifecycle)
      throw s3errors.noSuchConfig(
        'NoSuchLifecycleConfiguration',
        'The lifecycle configuration does not exist',
        b.label,
      );
    send(
      c,
      200,
      xml('LifecycleConfiguration', lifecycleDocument(JSON.parse(b.lifecycle) as LifecycleRule[])),
    );
  }

  /** Stores the rules and queues the bucket's daily lifecycle pass (s3.lifecycle.ts). */
  async putLifecycle(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutLifecycleConfiguration', true);
    const rules = parseLifecycle(await smallBody(c));
    await this.e.db.transaction(async (tx) => {
      await tx.db
        .updateTable('obj_buckets')
        .set({ lifecycle: JSON.stringify(rules) })
        .where('id', '=', b.id)
        .execute();
      await scheduleLifecycle(tx, this.e.queue, b, c.nowMs);
    });
    send(c, 200);
  }

  async deleteLifecycle(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutLifecycleConfiguration', true);
    await this.set(b, { lifecycle: null });
    send(c, 204);
  }

  async getWebsite(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketWebsite', false);
    if (!b.website) throw s3errors.noSuchWebsite();
    send(
      c,
      200,
      xml('WebsiteConfiguration', websiteDocument(JSON.parse(b.website) as WebsiteConfig)),
    );
  }

  async putWebsite(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketWebsite', true);
    const config = parseWebsite(await smallBody(c));
    await this.set(b, { website: JSON.stringify(config) });
    send(c, 200);
  }

  async deleteWebsite(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:DeleteBucketWebsite', true);
    await this.set(b, { website: null });
    send(c, 204);
  }

  async getTags(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketTagging', false);
    if (!b.tags) throw s3errors.noSuchConfig('NoSuchTagSet', 'The TagSet does not exist', b.label);
    send(c, 200, xml('Tagging', tagSet(JSON.parse(b.tags) as Record<string, string>)));
  }

  async putTags(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketTagging', true);
    const tags = parseTagging(await smallBody(c), 50);
    await this.set(b, { tags: JSON.stringify(tags) });
    send(c, 204);
  }

  async deleteTags(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketTagging', true);
    await this.set(b, { tags: null });
    send(c, 204);
  }

  async getObjectLock(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:GetBucketObjectLockConfiguration', false);
    if (b.object_lock !== 1)
      throw s3errors.noSuchConfig(
        'ObjectLockConfigurationNotFoundError',
        'Object Lock configuration does not exist for this bucket',
        b.label,
      );
    send(c, 200, xml('ObjectLockConfiguration', lockConfigDocument(b)));
  }

  /**
   * PutObjectLockConfiguration: the default retention of a bucket with object lock. A bucket made
   * without it gets object lock here once versioning is `Enabled` (S3 and RGW; never undone);
   * unversioned or suspended: 409 InvalidBucketState.
   */
  async putObjectLock(c: S3Call, b: BucketRow): Promise<void> {
    await this.owner(c, b, 's3:PutBucketObjectLockConfiguration', true);
    const d = parseLockConfig(await smallBody(c));
    if (b.object_lock !== 1 && b.versioning !== 'Enabled')
      throw s3errors.invalidBucketState(
        "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration",
      );
    await this.set(b, { object_lock: 1, lock_config: d ? JSON.stringify(d) : null });
    send(c, 200);
  }
}
