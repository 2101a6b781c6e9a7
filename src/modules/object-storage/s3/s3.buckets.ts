import type { Database } from '../../../db/database.js';
import { ApiError } from '../../../errors/api-error.js';
import type { JobQueue } from '../../../jobs/queue.js';
import type { BucketsService } from '../buckets.service.js';
import type { ObjectData } from '../objects.data.js';
import { listObjects, listVersions } from '../objects.listing.js';
import type { BucketRow, ObjectRow } from '../objects.repository.js';
import { authorize, bucketPolicy } from './s3.access.js';
import {
  aclDocument,
  cannedGrants,
  type Grant,
  grantsFromXml,
  grantsOf,
  isPublic,
  requestGrants,
  storedAcl,
} from './s3.acl.js';
import { header } from './s3.auth.js';
import { isoDate, quoted, type S3Accounts, type S3Call, send, smallBody } from './s3.context.js';
import { S3Error, s3errors } from './s3.errors.js';
import { isPublicPolicy } from './s3.policy.js';
import { rootOf, S3_NS, text, xml } from './s3.xml.js';
import { XMLBuilder } from 'fast-xml-parser';

export interface S3Env {
  db: Database;
  data: ObjectData;
  accounts: S3Accounts;
  queue: JobQueue;
}

/**
 * Bucket names as S3 has them: 3 to 63 characters of lower-case letters, digits, dots and
 * hyphens, beginning and ending with a letter or digit, no two dots in a row, not an IP address,
 * not S3's reserved prefixes and suffixes.
 */
export function s3BucketNameProblem(name: string): boolean {
  if (name.length < 3 || name.length > 63) return true;
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) return true;
  if (name.includes('..') || name.includes('.-') || name.includes('-.')) return true;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return true;
  return name.startsWith('xn--') || name.endsWith('-s3alias') || name.endsWith('--ol-s3');
}

const fragment = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
  processEntities: true,
});

const encoder = (c: S3Call) => {
  const type = c.query.get('encoding-type');
  if (type !== undefined && type !== 'url')
    throw s3errors.invalidArgument('Invalid Encoding Method specified in Request');
  return type === 'url'
    ? (s: string) => encodeURIComponent(s).replace(/%2F/g, '/')
    : (s: string) => s;
};

function maxKeys(c: S3Call, name = 'max-keys'): number {
  const text = c.query.get(name) ?? '1000';
  if (!/^-?\d+$/.test(text)) throw s3errors.invalidArgument(`Provided ${name} not an integer`);
  const n = Number(text);
  if (n < 0)
    throw s3errors.invalidArgument(`Argument ${name} must be an integer between 0 and 2147483647`);
  return Math.min(n, 1000);
}

export class S3Buckets {
  constructor(private readonly e: S3Env & { buckets: BucketsService }) {}

  private owner = async (accountId: number) => {
    const id = await this.e.accounts.canonicalId(accountId);
    return { ID: id, DisplayName: id };
  };

  /**
   * ListBuckets: every bucket of the key's account in this cluster (limited keys list them all,
   * as the provider says); `max-buckets`, `prefix` and `continuation-token` page them. An
   * anonymous caller gets an empty list, as RGW answers.
   */
  async listAll(c: S3Call): Promise<void> {
    const maxText = c.query.get('max-buckets');
    let max = 10_000;
    if (maxText !== undefined) {
      if (!/^\d+$/.test(maxText) || Number(maxText) < 1 || Number(maxText) > 10_000)
        throw s3errors.invalidArgument(
          'Argument max-buckets must be an integer between 1 and 10000',
        );
      max = Number(maxText);
    }
    const prefix = c.query.get('prefix') ?? '';
    const token = c.query.get('continuation-token');
    const after =
      token !== undefined ? Buffer.from(token, 'base64url').toString('utf8') : undefined;
    let rows: { label: string; created: string }[] = [];
    if (c.caller.accountId !== null) {
      let q = this.e.db.db
        .selectFrom('obj_buckets')
        .select(['label', 'created'])
        .where('account_id', '=', c.caller.accountId)
        .where('cluster', '=', c.cluster);
      if (prefix !== '') q = q.where('label', '>=', prefix);
      if (after !== undefined) q = q.where('label', '>', after);
      rows = (
        await q
          .orderBy('label')
          .limit(max + 1)
          .execute()
      ).filter((r) => r.label.startsWith(prefix));
    }
    const truncated = rows.length > max;
    const page = rows.slice(0, max);
    const owner =
      c.caller.accountId !== null
        ? await this.owner(c.caller.accountId)
        : { ID: 'anonymous', DisplayName: '' };
    send(
      c,
      200,
      xml('ListAllMyBucketsResult', {
        Owner: owner,
        Buckets: {
          Bucket: page.map((r) => ({
            Name: r.label,
            CreationDate: isoDate(r.created),
            BucketRegion: c.cluster,
          })),
        },
        ...(truncated
          ? {
              ContinuationToken: Buffer.from(page[page.length - 1]?.label ?? '').toString(
                'base64url',
              ),
            }
          : {}),
        ...(c.query.has('prefix') ? { Prefix: prefix } : {}),
      }),
    );
  }

  /**
   * CreateBucket: S3's name rules, the location constraint of this cluster, a canned ACL or
   * grants, object lock. Limited keys may create buckets (and get no access to them). A bucket
   * of one's own is answered as RGW answers in the default region: 200 when asked the same
   * again, BucketAlreadyExists when asked with another ACL; another account's is
   * BucketAlreadyExists.
   */
  async create(c: S3Call): Promise<void> {
    if (c.caller.accountId === null || c.caller.canonicalId === null) throw s3errors.accessDenied();
    const label = c.bucket as string;
    if (s3BucketNameProblem(label)) throw s3errors.invalidBucketName();
    const body = await smallBody(c);
    if (body.trim() !== '') {
      const doc = rootOf<{ LocationConstraint?: unknown }>(body, 'CreateBucketConfiguration');
      const loc = text(doc.LocationConstraint) ?? '';
      if (loc !== '' && loc !== c.cluster && `${loc}-1` !== c.cluster)
        throw new S3Error(
          400,
          'InvalidLocationConstraint',
          'The specified location-constraint is not valid',
          { LocationConstraint: loc },
        );
    }
    const me = c.caller.canonicalId;
    const grants =
      (await requestGrants(c.req.headers, me, me, this.e.accounts)) ?? cannedGrants('private', me);
    const lock = (header(c.req, 'x-amz-bucket-object-lock-enabled') ?? '').toLowerCase() === 'true';
    const stored = storedAcl(grants, me);
    let row: BucketRow & { existed?: boolean };
    try {
      row = await this.e.buckets.createRow(c.caller.accountId, c.cluster, label, {
        acl: stored.acl as BucketRow['acl'],
        cors: false,
        grants: stored.grants,
        objectLock: lock,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        const reason = err.errors[0]?.reason ?? '';
        if (reason.includes('already exists')) throw s3errors.bucketExists();
        if (reason.includes('limit of'))
          throw new S3Error(
            400,
            'TooManyBuckets',
            'You have attempted to create more buckets than allowed',
          );
        throw new S3Error(403, 'AccessDenied', reason);
      }
      throw err;
    }
    if (row.existed) {
      const same = sameGrants(grantsOf(row, me), grants) && (!lock || row.object_lock === 1);
      if (!same) throw s3errors.bucketExists();
    }
    send(c, 200, undefined, { location: `/${label}` });
  }

  async remove(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      { action: 's3:DeleteBucket', bucket: b, acl: { on: 'owner' }, write: true },
      this.e.accounts,
    );
    await this.e.buckets.removeRow(b, () => s3errors.bucketNotEmpty());
    send(c, 204);
  }

  async head(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:ListBucket',
        bucket: b,
        acl: { on: 'bucket', permission: 'READ' },
        write: false,
      },
      this.e.accounts,
    );
    send(c, 200, undefined, {
      'x-amz-bucket-region': c.cluster,
      'x-amz-access-point-alias': 'false',
      'x-rgw-object-count': Number(b.objects),
      'x-rgw-bytes-used': Number(b.size),
    });
  }

  private async listAccess(c: S3Call, b: BucketRow, action: string) {
    await authorize(
      c,
      {
        action,
        bucket: b,
        acl: { on: 'bucket', permission: 'READ' },
        write: false,
        context: {
          's3:prefix': c.query.get('prefix') ?? '',
          's3:delimiter': c.query.get('delimiter'),
          's3:max-keys': c.query.get('max-keys'),
        },
      },
      this.e.accounts,
    );
  }

  private async ownerOfRow(b: BucketRow, row: ObjectRow) {
    return this.owner(row.owner_id ?? b.account_id);
  }

  /** ListObjects (V1, marker) and ListObjectsV2 (continuation token, start-after). */
  async list(c: S3Call, b: BucketRow): Promise<void> {
    await this.listAccess(c, b, 's3:ListBucket');
    const enc = encoder(c);
    const v2 = c.query.get('list-type') === '2';
    const max = maxKeys(c);
    const prefix = c.query.get('prefix') ?? '';
    const delimiter = c.query.get('delimiter') ?? '';
    const token = c.query.get('continuation-token');
    let after: string | undefined;
    if (v2) {
      // An empty token starts at the beginning, as RGW answers it (echoed back empty).
      if (token !== undefined && token !== '') {
        after = Buffer.from(token, 'base64url').toString('utf8');
      } else {
        after = c.query.get('start-after');
      }
    } else {
      after = c.query.get('marker');
    }
    const listing =
      max === 0
        ? { entries: [], truncated: false, next: undefined }
        : await listObjects(this.e.db, b.id, {
            prefix,
            delimiter,
            ...(after !== undefined && after !== '' ? { after } : {}),
            max,
          });
    const withOwner = !v2 || c.query.get('fetch-owner') === 'true';
    const contents = [];
    for (const e of listing.entries) {
      if (!e.row) continue;
      contents.push({
        Key: enc(e.name),
        LastModified: isoDate(e.row.last_modified),
        ETag: quoted(e.row.etag),
        Size: Number(e.row.size),
        ...(withOwner ? { Owner: await this.ownerOfRow(b, e.row) } : {}),
        StorageClass: 'STANDARD',
      });
    }
    const prefixes = listing.entries.filter((e) => !e.row).map((e) => ({ Prefix: enc(e.name) }));
    const common = {
      Name: b.label,
      // ListObjects (v1) gives the prefix as asked (RGW; the SDKs decode it only in v2).
      Prefix: v2 ? enc(prefix) : prefix,
      ...(delimiter !== '' ? { Delimiter: enc(delimiter) } : {}),
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
            ? { StartAfter: enc(c.query.get('start-after') ?? '') }
            : {}),
          ...(listing.truncated && listing.next !== undefined
            ? { NextContinuationToken: Buffer.from(listing.next, 'utf8').toString('base64url') }
            : {}),
          Contents: contents,
          CommonPrefixes: prefixes,
        }
      : {
          ...common,
          Marker: enc(after ?? ''),
          ...(listing.truncated && listing.next !== undefined
            ? { NextMarker: enc(listing.next) }
            : {}),
          Contents: contents,
          CommonPrefixes: prefixes,
        };
    send(c, 200, xml('ListBucketResult', body));
  }

  /**
   * ListObjectVersions: every version and delete marker, newest first within a name, paged by
   * key and version id markers. An unversioned bucket's objects are each a version `null`.
   */
  async listVersions(c: S3Call, b: BucketRow): Promise<void> {
    await this.listAccess(c, b, 's3:ListBucketVersions');
    const enc = encoder(c);
    const max = maxKeys(c);
    const prefix = c.query.get('prefix') ?? '';
    const delimiter = c.query.get('delimiter') ?? '';
    const keyMarker = c.query.get('key-marker') ?? '';
    const versionIdMarker = c.query.get('version-id-marker') ?? '';
    if (versionIdMarker !== '' && keyMarker === '')
      throw s3errors.invalidArgument(
        'A version-id marker cannot be specified without a key marker.',
      );
    const listing =
      max === 0
        ? {
            entries: [],
            truncated: false,
            nextKeyMarker: undefined,
            nextVersionIdMarker: undefined,
          }
        : await listVersions(
            this.e.db,
            b.id,
            { prefix, delimiter, keyMarker, versionIdMarker, max },
            () => s3errors.invalidArgument('Invalid version id specified'),
          );
    const parts: string[] = [];
    const el = (name: string, value: unknown) => parts.push(fragment.build({ [name]: value }));
    el('Name', b.label);
    el('Prefix', enc(prefix));
    el('KeyMarker', enc(keyMarker));
    el('VersionIdMarker', versionIdMarker);
    if (listing.nextKeyMarker !== undefined) el('NextKeyMarker', enc(listing.nextKeyMarker));
    if (listing.nextVersionIdMarker !== undefined)
      el('NextVersionIdMarker', listing.nextVersionIdMarker);
    el('MaxKeys', max);
    if (delimiter !== '') el('Delimiter', enc(delimiter));
    if (c.query.get('encoding-type') === 'url') el('EncodingType', 'url');
    el('IsTruncated', listing.truncated);
    for (const e of listing.entries) {
      const row = e.row;
      if (!row) continue;
      const common = {
        Key: enc(e.name),
        VersionId: row.version_id,
        IsLatest: row.is_latest === 1,
        LastModified: isoDate(row.last_modified),
      };
      const owner = await this.ownerOfRow(b, row);
      if (row.delete_marker === 1) el('DeleteMarker', { ...common, Owner: owner });
      else
        el('Version', {
          ...common,
          ETag: quoted(row.etag),
          Size: Number(row.size),
          Owner: owner,
          StorageClass: 'STANDARD',
        });
    }
    for (const e of listing.entries) if (!e.row) el('CommonPrefixes', { Prefix: enc(e.name) });
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListVersionsResult xmlns="${S3_NS}">${parts.join('')}</ListVersionsResult>`;
    send(c, 200, body);
  }

  async getAcl(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:GetBucketAcl',
        bucket: b,
        acl: { on: 'bucket', permission: 'READ_ACP' },
        write: false,
      },
      this.e.accounts,
    );
    const owner = await this.e.accounts.canonicalId(b.account_id);
    send(c, 200, aclDocument(owner, grantsOf(b, owner)));
  }

  /** PutBucketAcl: a canned ACL, grant headers, or an AccessControlPolicy document (one of). */
  async putAcl(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      {
        action: 's3:PutBucketAcl',
        bucket: b,
        acl: { on: 'bucket', permission: 'WRITE_ACP' },
        write: true,
      },
      this.e.accounts,
    );
    const owner = await this.e.accounts.canonicalId(b.account_id);
    const grants = await aclOfRequest(c, owner, owner, this.e.accounts);
    const stored = storedAcl(grants, owner);
    await this.e.db.db.updateTable('obj_buckets').set(stored).where('id', '=', b.id).execute();
    send(c, 200);
  }

  async location(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      { action: 's3:GetBucketLocation', bucket: b, acl: { on: 'owner' }, write: false },
      this.e.accounts,
    );
    send(c, 200, xml('LocationConstraint', { '#text': c.cluster }));
  }

  /** GetBucketPolicyStatus: public when the policy or the bucket's ACL opens it to everyone. */
  async policyStatus(c: S3Call, b: BucketRow): Promise<void> {
    await authorize(
      c,
      { action: 's3:GetBucketPolicyStatus', bucket: b, acl: { on: 'owner' }, write: false },
      this.e.accounts,
    );
    const owner = await this.e.accounts.canonicalId(b.account_id);
    const policy = bucketPolicy(b);
    const open = (policy ? isPublicPolicy(policy) : false) || isPublic(grantsOf(b, owner));
    send(c, 200, xml('PolicyStatus', { IsPublic: open }));
  }
}

function sameGrants(a: Grant[], b: Grant[]): boolean {
  const key = (g: Grant) =>
    `${g.grantee.type === 'Group' ? g.grantee.uri : g.grantee.id}|${g.permission}`;
  const ka = a.map(key).sort().join(',');
  return ka === b.map(key).sort().join(',');
}

/** The grants a PutBucketAcl or PutObjectAcl asks for: headers or the document, not both. */
export async function aclOfRequest(
  c: S3Call,
  owner: string,
  bucketOwner: string,
  accounts: S3Accounts,
): Promise<Grant[]> {
  const fromHeaders = await requestGrants(c.req.headers, owner, bucketOwner, accounts);
  const body = await smallBody(c);
  if (fromHeaders && body.trim() !== '')
    throw s3errors.invalidRequest(
      'Specifying both ACL headers and an AccessControlPolicy document is not allowed',
    );
  if (fromHeaders) return fromHeaders;
  if (body.trim() === '') throw s3errors.malformedAcl();
  return grantsFromXml(body, owner, accounts);
}
