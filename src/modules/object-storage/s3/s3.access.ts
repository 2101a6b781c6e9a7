import type { BucketRow, ObjectRow } from '../objects.repository.js';
import { header } from './s3.auth.js';
import { type Grant, grantsOf, type Permission, permitted } from './s3.acl.js';
import type { S3Accounts, S3Call } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { evaluatePolicy, type PolicyStatement, parsePolicy } from './s3.policy.js';

/**
 * Who may do what on the data plane, as S3 and Ceph RGW decide it:
 *
 * 1. An access key's bucket limits come first. A limited key acts on the buckets it lists with
 *    their permission (a `read_only` entry allows no write, whatever else says); on any other
 *    bucket it is no one in particular (anonymous), so it sees what everyone sees.
 * 2. The bucket policy: an explicit Deny refuses, an Allow permits.
 * 3. Otherwise the ACLs: the bucket's for bucket operations and writes of objects, the object's
 *    for reads of it. A resource's owner always keeps READ_ACP and WRITE_ACP; bucket
 *    configurations (CORS, policy, lifecycle, …) are the bucket owner's alone.
 */

/** What the ACLs must grant for an operation when no policy statement decides. */
export type AclNeed =
  | { on: 'bucket'; permission: Permission }
  | { on: 'object'; permission: Permission }
  | { on: 'owner' };

export interface AccessRequest {
  /** The policy action, e.g. `s3:GetObject`. */
  action: string;
  bucket: BucketRow;
  /** The object key, for the resource ARN. */
  key?: string;
  /** The object (version) read, for object ACLs and s3:ExistingObjectTag. */
  object?: ObjectRow;
  acl: AclNeed;
  /** Whether the operation changes anything (a `read_only` key may not). */
  write: boolean;
  /** Condition keys of this operation (lower-case), beside those of every request. */
  context?: Record<string, string | string[] | undefined>;
}

const policyCache = new Map<string, PolicyStatement[]>();

/** The parsed policy of a bucket (cached by its text), or undefined. */
export function bucketPolicy(b: BucketRow): PolicyStatement[] | undefined {
  if (!b.policy) return undefined;
  let p = policyCache.get(b.policy);
  if (!p) {
    p = parsePolicy(b.policy, b.label);
    if (policyCache.size > 1000) policyCache.clear();
    policyCache.set(b.policy, p);
  }
  return p;
}

/** The key-limit verdict: the caller's identity for policies and ACLs, or a refusal. */
export function effectiveCaller(c: S3Call, b: BucketRow, write: boolean): string | null {
  const caller = c.caller;
  if (caller.canonicalId === null) return null;
  if (!caller.limited) return caller.canonicalId;
  const perm = caller.access.get(`${b.cluster}/${b.label}`);
  if (perm === undefined) return null;
  if (perm === 'read_only' && write) throw s3errors.accessDenied();
  return caller.canonicalId;
}

/** The condition keys every request carries. */
function baseContext(c: S3Call, who: string | null): Map<string, string[]> {
  const ctx = new Map<string, string[]>();
  const set = (k: string, v: string | string[] | undefined) => {
    if (v === undefined) return;
    ctx.set(k, Array.isArray(v) ? v : [v]);
  };
  set('aws:sourceip', c.sourceIp);
  set('aws:securetransport', String(c.secure));
  set('aws:currenttime', new Date(c.nowMs).toISOString());
  set('aws:epochtime', String(Math.floor(c.nowMs / 1000)));
  set('aws:useragent', header(c.req, 'user-agent'));
  set('aws:referer', header(c.req, 'referer'));
  set('aws:principaltype', who === null ? 'Anonymous' : 'Account');
  if (who !== null) set('aws:userid', who);
  if (c.caller.authType) set('s3:authtype', c.caller.authType);
  if (c.caller.signatureVersion) set('s3:signatureversion', c.caller.signatureVersion);
  if (c.caller.signedAtMs !== undefined)
    set('s3:signatureage', String(Math.max(0, c.nowMs - c.caller.signedAtMs)));
  for (const [name, value] of Object.entries(c.req.headers)) {
    if (name.startsWith('x-amz-') && !name.startsWith('x-amz-meta-') && value !== undefined)
      set(`s3:${name}`, value);
  }
  const versionId = c.query.get('versionId');
  if (versionId !== undefined) set('s3:versionid', versionId);
  return ctx;
}

/**
 * Decides a request: throws AccessDenied unless the key limits, the bucket policy and the ACLs
 * (in that order, as above) let the caller do it.
 */
export async function authorize(c: S3Call, a: AccessRequest, accounts: S3Accounts): Promise<void> {
  const who = effectiveCaller(c, a.bucket, a.write);
  const bucketOwner = await accounts.canonicalId(a.bucket.account_id);
  const policy = bucketPolicy(a.bucket);
  if (policy) {
    const context = baseContext(c, who);
    for (const [k, v] of Object.entries(a.context ?? {})) {
      if (v !== undefined) context.set(k, Array.isArray(v) ? v : [v]);
    }
    if (a.object?.tags) {
      for (const [k, v] of Object.entries(JSON.parse(a.object.tags) as Record<string, string>))
        context.set(`s3:existingobjecttag/${k.toLowerCase()}`, [v]);
    }
    const resource =
      a.key !== undefined
        ? `arn:aws:s3:::${a.bucket.label}/${a.key}`
        : `arn:aws:s3:::${a.bucket.label}`;
    const verdict = evaluatePolicy(policy, {
      principal: who,
      action: a.action,
      resource,
      context,
    });
    // The owner cannot lock itself out of its own policy.
    const policyOp = /^s3:(Get|Put|Delete)BucketPolicy$/.test(a.action);
    if (verdict === 'Deny' && !(policyOp && who === bucketOwner)) throw s3errors.accessDenied();
    if (verdict === 'Allow') return;
  }
  if (aclAllows(a, who, bucketOwner, await objectOwner(a, accounts, bucketOwner))) return;
  throw s3errors.accessDenied();
}

async function objectOwner(a: AccessRequest, accounts: S3Accounts, bucketOwner: string) {
  if (!a.object || a.object.owner_id === null) return bucketOwner;
  return accounts.canonicalId(a.object.owner_id);
}

function aclAllows(
  a: AccessRequest,
  who: string | null,
  bucketOwner: string,
  objOwner: string,
): boolean {
  if (a.acl.on === 'owner') return who !== null && who === bucketOwner;
  const perm = a.acl.permission;
  if (a.acl.on === 'bucket') {
    if (who !== null && who === bucketOwner && (perm === 'READ_ACP' || perm === 'WRITE_ACP'))
      return true;
    return permitted(grantsOf(a.bucket, bucketOwner), who, perm);
  }
  if (!a.object) return false;
  if (who !== null && who === objOwner && (perm === 'READ_ACP' || perm === 'WRITE_ACP'))
    return true;
  const grants: Grant[] = grantsOf(a.object, objOwner, bucketOwner);
  return permitted(grants, who, perm);
}

/**
 * The policy action of an operation on a named version: `s3:GetObjectAcl` becomes
 * `s3:GetObjectVersionAcl`, `s3:GetObject` `s3:GetObjectVersion` (retention and legal hold have
 * no version form).
 */
export function versionedAction(action: string): string {
  if (/Retention$|LegalHold$/.test(action)) return action;
  return action.replace(/^s3:(Get|Put|Delete)Object/, 's3:$1ObjectVersion');
}

/** Whether the caller is the bucket's owner (through a key that may act on it). */
export function isBucketOwner(c: S3Call, b: BucketRow): boolean {
  return c.caller.accountId !== null && c.caller.accountId === b.account_id;
}
