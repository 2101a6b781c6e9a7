import type { Database } from '../../../db/database.js';
import { ApiError } from '../../../errors/api-error.js';
import type { BucketsService } from '../buckets.service.js';
import { listObjects } from '../objects.listing.js';
import type { BucketRow } from '../objects.repository.js';
import { bucketLabelProblem } from '../objects.rules.js';
import { header } from './s3.auth.js';
import {
  canAdminister,
  canList,
  cannedAcl,
  isoDate,
  ownerPermission,
  quoted,
  type S3Call,
  send,
  smallBody,
} from './s3.context.js';
import { S3Error, s3errors } from './s3.errors.js';
import { aclFromXml } from './s3.acl.js';
import { ownerOf } from './s3.objects.js';
import { aclDocument, xml } from './s3.xml.js';

const enc = (c: S3Call, s: string) =>
  c.query.get('encoding-type') === 'url' ? encodeURIComponent(s).replace(/%2F/g, '/') : s;

export class S3Buckets {
  constructor(
    private readonly db: Database,
    private readonly buckets: BucketsService,
  ) {}

  /** ListBuckets: every bucket of the key's account in this cluster (limited keys too). */
  async listAll(c: S3Call): Promise<void> {
    if (c.caller.accountId === null) throw s3errors.accessDenied();
    const rows = await this.db.db
      .selectFrom('obj_buckets')
      .select(['label', 'created'])
      .where('account_id', '=', c.caller.accountId)
      .where('cluster', '=', c.cluster)
      .orderBy('label')
      .execute();
    const owner = await ownerOf(this.db, { account_id: c.caller.accountId } as BucketRow);
    send(
      c,
      200,
      xml('ListAllMyBucketsResult', {
        Owner: { ID: owner, DisplayName: owner },
        Buckets: { Bucket: rows.map((r) => ({ Name: r.label, CreationDate: isoDate(r.created) })) },
      }),
    );
  }

  /** CreateBucket: limited keys may create buckets (and get no access to them). */
  async create(c: S3Call): Promise<void> {
    if (c.caller.accountId === null) throw s3errors.accessDenied();
    const label = c.bucket as string;
    if (bucketLabelProblem(label)) throw s3errors.invalidBucketName();
    let row: BucketRow & { existed?: boolean };
    try {
      row = await this.buckets.createRow(c.caller.accountId, c.cluster, label, {
        acl: cannedAcl(c) ?? 'private',
        cors: false,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        const reason = err.errors[0]?.reason ?? '';
        if (reason.includes('already exists')) throw s3errors.bucketExists();
        throw new S3Error(403, 'AccessDenied', reason);
      }
      throw err;
    }
    if (row.existed) throw s3errors.bucketOwned();
    send(c, 200, undefined, { location: `/${label}` });
  }

  async remove(c: S3Call, b: BucketRow): Promise<void> {
    if (!canAdminister(c.caller, b)) throw s3errors.accessDenied();
    await this.buckets.removeRow(b, () => s3errors.bucketNotEmpty());
    send(c, 204);
  }

  async head(c: S3Call, b: BucketRow): Promise<void> {
    if (!canList(c.caller, b)) throw s3errors.accessDenied();
    send(c, 200, undefined, { 'x-amz-bucket-region': c.cluster });
  }

  /** ListObjects (V1, marker) and ListObjectsV2 (continuation token, start-after). */
  async list(c: S3Call, b: BucketRow): Promise<void> {
    if (!canList(c.caller, b)) throw s3errors.accessDenied();
    const v2 = c.query.get('list-type') === '2';
    const maxText = c.query.get('max-keys') ?? '1000';
    if (!/^\d+$/.test(maxText)) throw s3errors.invalidArgument('Provided max-keys not an integer');
    const max = Math.min(Number(maxText), 1000);
    const prefix = c.query.get('prefix') ?? '';
    const delimiter = c.query.get('delimiter') ?? '';
    const token = c.query.get('continuation-token');
    let after: string | undefined;
    if (v2) {
      after =
        token !== undefined
          ? Buffer.from(token, 'base64url').toString('utf8')
          : c.query.get('start-after');
    } else {
      after = c.query.get('marker');
    }
    const listing =
      max === 0
        ? { entries: [], truncated: false, next: undefined }
        : await listObjects(this.db, b.id, {
            prefix,
            delimiter,
            ...(after !== undefined && after !== '' ? { after } : {}),
            max,
          });
    const owner = await ownerOf(this.db, b);
    const contents = listing.entries
      .filter((e) => e.row)
      .map((e) => ({
        Key: enc(c, e.name),
        LastModified: isoDate(e.row?.last_modified ?? ''),
        ETag: quoted(e.row?.etag ?? ''),
        Size: Number(e.row?.size ?? 0),
        ...(v2 && c.query.get('fetch-owner') !== 'true'
          ? {}
          : { Owner: { ID: owner, DisplayName: owner } }),
        StorageClass: 'STANDARD',
      }));
    const prefixes = listing.entries.filter((e) => !e.row).map((e) => ({ Prefix: enc(c, e.name) }));
    const common = {
      Name: b.label,
      Prefix: enc(c, prefix),
      ...(delimiter !== '' ? { Delimiter: enc(c, delimiter) } : {}),
      MaxKeys: max,
      ...(c.query.get('encoding-type') === 'url' ? { EncodingType: 'url' } : {}),
      IsTruncated: listing.truncated,
    };
    const body = v2
      ? {
          ...common,
          KeyCount: listing.entries.length,
          ...(token !== undefined ? { ContinuationToken: token } : {}),
          ...(c.query.has('start-after')
            ? { StartAfter: enc(c, c.query.get('start-after') ?? '') }
            : {}),
          ...(listing.truncated && listing.next !== undefined
            ? { NextContinuationToken: Buffer.from(listing.next, 'utf8').toString('base64url') }
            : {}),
          Contents: contents,
          CommonPrefixes: prefixes,
        }
      : {
          ...common,
          Marker: enc(c, after ?? ''),
          ...(listing.truncated && delimiter !== '' && listing.next !== undefined
            ? { NextMarker: enc(c, listing.next) }
            : {}),
          Contents: contents,
          CommonPrefixes: prefixes,
        };
    send(c, 200, xml('ListBucketResult', body));
  }

  async getAcl(c: S3Call, b: BucketRow): Promise<void> {
    if (!ownerPermission(c.caller, b)) throw s3errors.accessDenied();
    send(c, 200, aclDocument(b.acl, await ownerOf(this.db, b)));
  }

  async putAcl(c: S3Call, b: BucketRow): Promise<void> {
    if (!canAdminister(c.caller, b)) throw s3errors.accessDenied();
    const acl = cannedAcl(c) ?? aclFromXml(await smallBody(c));
    await this.db.db.updateTable('obj_buckets').set({ acl }).where('id', '=', b.id).execute();
    send(c, 200);
  }

  async location(c: S3Call, b: BucketRow): Promise<void> {
    if (!ownerPermission(c.caller, b)) throw s3errors.accessDenied();
    send(c, 200, xml('LocationConstraint', { '#text': c.cluster }));
  }

  /** Versioning is never enabled: an empty VersioningConfiguration. */
  async versioning(c: S3Call, b: BucketRow): Promise<void> {
    if (!ownerPermission(c.caller, b)) throw s3errors.accessDenied();
    send(c, 200, xml('VersioningConfiguration', {}));
  }

  /** The bucket's CORS: all origins when enabled (the control plane's `cors_enabled`). */
  async getCors(c: S3Call, b: BucketRow): Promise<void> {
    if (!ownerPermission(c.caller, b)) throw s3errors.accessDenied();
    if (b.cors_enabled !== 1)
      throw new S3Error(404, 'NoSuchCORSConfiguration', 'The CORS configuration does not exist');
    send(
      c,
      200,
      xml('CORSConfiguration', {
        CORSRule: [
          {
            AllowedOrigin: '*',
            AllowedMethod: ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'],
            AllowedHeader: '*',
            ExposeHeader: 'ETag',
            MaxAgeSeconds: 3000,
          },
        ],
      }),
    );
  }

  /** PutBucketCors enables CORS for all origins; DeleteBucketCors disables it. */
  async setCors(c: S3Call, b: BucketRow, on: boolean): Promise<void> {
    if (!canAdminister(c.caller, b)) throw s3errors.accessDenied();
    if (on) await smallBody(c);
    await this.db.db
      .updateTable('obj_buckets')
      .set({ cors_enabled: on ? 1 : 0 })
      .where('id', '=', b.id)
      .execute();
    send(c, on ? 200 : 204);
  }

  /** CORS preflight, answered from the bucket's `cors_enabled`. */
  preflight(c: S3Call, b: BucketRow | undefined): void {
    const origin = header(c.req, 'origin');
    if (b?.cors_enabled !== 1 || origin === undefined) {
      throw new S3Error(403, 'CORSResponse', 'CORS is not enabled for this bucket.');
    }
    send(c, 200, undefined, {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, PUT, POST, DELETE, HEAD',
      'access-control-allow-headers': header(c.req, 'access-control-request-headers') ?? '*',
      'access-control-expose-headers': 'ETag, x-amz-request-id',
      'access-control-max-age': 3000,
      vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
    });
  }
}
