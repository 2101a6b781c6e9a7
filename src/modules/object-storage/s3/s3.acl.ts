import type { ObjectAcl } from '../objects.table.js';
import { s3errors } from './s3.errors.js';
import { rootOf, text, XSI, xml } from './s3.xml.js';

export const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
export const AUTHENTICATED_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';
export const LOG_DELIVERY = 'http://acs.amazonaws.com/groups/s3/LogDelivery';
const GROUPS = [ALL_USERS, AUTHENTICATED_USERS, LOG_DELIVERY];

export type Permission = 'FULL_CONTROL' | 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP';
const PERMISSIONS: readonly Permission[] = [
  'FULL_CONTROL',
  'READ',
  'WRITE',
  'READ_ACP',
  'WRITE_ACP',
];

/** A grantee: an account (its canonical id, the account's euuid) or one of S3's groups. */
export type Grantee = { type: 'CanonicalUser'; id: string } | { type: 'Group'; uri: string };

export interface Grant {
  grantee: Grantee;
  permission: Permission;
}

/** The canned ACLs S3 takes in `x-amz-acl`. */
export const CANNED = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
  'log-delivery-write',
] as const;
export type CannedAcl = (typeof CANNED)[number];

/** The canned ACLs the control plane's `acl` field names (the others are stored as `custom`). */
const API_CANNED: readonly string[] = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
];

const user = (id: string): Grantee => ({ type: 'CanonicalUser', id });
const group = (uri: string): Grantee => ({ type: 'Group', uri });

/** The grants a canned ACL stands for, on a resource owned by `owner` in `bucketOwner`'s bucket. */
export function cannedGrants(acl: string, owner: string, bucketOwner = owner): Grant[] {
  const grants: Grant[] = [{ grantee: user(owner), permission: 'FULL_CONTROL' }];
  const add = (g: Grantee, permission: Permission) => grants.push({ grantee: g, permission });
  switch (acl) {
    case 'public-read':
      add(group(ALL_USERS), 'READ');
      break;
    case 'public-read-write':
      add(group(ALL_USERS), 'READ');
      add(group(ALL_USERS), 'WRITE');
      break;
    case 'authenticated-read':
      add(group(AUTHENTICATED_USERS), 'READ');
      break;
    case 'bucket-owner-read':
      if (bucketOwner !== owner) add(user(bucketOwner), 'READ');
      break;
    case 'bucket-owner-full-control':
      if (bucketOwner !== owner) add(user(bucketOwner), 'FULL_CONTROL');
      break;
    case 'log-delivery-write':
      add(group(LOG_DELIVERY), 'WRITE');
      add(group(LOG_DELIVERY), 'READ_ACP');
      break;
    default:
      break;
  }
  return grants;
}

const sameGrants = (a: Grant[], b: Grant[]) => {
  const key = (g: Grant) =>
    `${g.grantee.type === 'Group' ? g.grantee.uri : g.grantee.id}|${g.permission}`;
  const ka = a.map(key).sort();
  const kb = b.map(key).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
};

/**
 * How grants are stored: a canned ACL the control plane knows when they are exactly its grants
 * (the `acl` column alone), else `custom` with the grants as JSON.
 */
export function storedAcl(
  grants: Grant[],
  owner: string,
): { acl: ObjectAcl; grants: string | null } {
  for (const canned of API_CANNED) {
    if (sameGrants(grants, cannedGrants(canned, owner)))
      return { acl: canned as ObjectAcl, grants: null };
  }
  return { acl: 'custom', grants: JSON.stringify(grants) };
}

/** The grants of a resource from its stored `acl` and `grants`. */
export function grantsOf(
  r: { acl: string; grants: string | null },
  owner: string,
  bucketOwner = owner,
): Grant[] {
  if (r.acl === 'custom') {
    // A `custom` ACL set through the control plane without grants is the owner's alone.
    return r.grants ? (JSON.parse(r.grants) as Grant[]) : cannedGrants('private', owner);
  }
  return cannedGrants(r.acl, owner, bucketOwner);
}

/** The permissions `grants` give to a caller (its canonical id, or null when anonymous). */
export function permitted(grants: Grant[], callerId: string | null, perm: Permission): boolean {
  return grants.some((g) => {
    if (g.permission !== perm && g.permission !== 'FULL_CONTROL') return false;
    if (g.grantee.type === 'Group') {
      if (g.grantee.uri === ALL_USERS) return true;
      return g.grantee.uri === AUTHENTICATED_USERS && callerId !== null;
    }
    return callerId !== null && g.grantee.id === callerId;
  });
}

/** Resolves grantees by canonical id or e-mail address to accounts (their canonical id). */
export interface GranteeResolver {
  /** The canonical id of the account with this id, or undefined when there is none. */
  byId(id: string): Promise<string | undefined>;
  /** The canonical id of the account a user with this e-mail address belongs to. */
  byEmail(email: string): Promise<string | undefined>;
}

async function resolveGrantee(
  r: GranteeResolver,
  kind: 'id' | 'uri' | 'emailAddress',
  value: string,
): Promise<Grantee> {
  if (kind === 'uri') {
    if (!GROUPS.includes(value)) throw s3errors.invalidArgument('Invalid group uri');
    return group(value);
  }
  if (kind === 'emailAddress') {
    const id = await r.byEmail(value);
    if (!id) throw s3errors.unresolvableEmail();
    return user(id);
  }
  const id = await r.byId(value);
  if (!id) throw s3errors.invalidArgument('Invalid id');
  return user(id);
}

/** The `x-amz-grant-*` headers of a request, as grants (undefined when there are none). */
export async function grantsFromHeaders(
  headers: Record<string, string | string[] | undefined>,
  r: GranteeResolver,
): Promise<Grant[] | undefined> {
  const out: Grant[] = [];
  let any = false;
  for (const perm of PERMISSIONS) {
    const name = `x-amz-grant-${perm.toLowerCase().replace('_', '-')}`;
    const raw = headers[name];
    if (raw === undefined) continue;
    any = true;
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    for (const part of value.split(',')) {
      const m = /^\s*(id|uri|emailAddress)\s*=\s*"?([^"]*)"?\s*$/.exec(part);
      if (!m) throw s3errors.invalidArgument(`Invalid grant in ${name}`);
      out.push({
        grantee: await resolveGrantee(r, m[1] as 'id' | 'uri' | 'emailAddress', m[2] ?? ''),
        permission: perm,
      });
    }
  }
  return any ? out : undefined;
}

interface GrantXml {
  Grantee?: {
    '@_type'?: string;
    ID?: unknown;
    URI?: unknown;
    EmailAddress?: unknown;
  };
  Permission?: unknown;
}

/**
 * An AccessControlPolicy document, as grants: grantees by canonical id, group or e-mail address
 * (resolved to accounts; an unknown one is refused), permissions from S3's five. The owner, if
 * given, must be the resource's owner.
 */
export async function grantsFromXml(body: string, owner: string, r: GranteeResolver) {
  const doc = rootOf<{
    Owner?: { ID?: unknown };
    AccessControlList?: { Grant?: GrantXml[] } | string;
  }>(body, 'AccessControlPolicy');
  const ownerId = text(doc.Owner?.ID);
  if (ownerId !== undefined && ownerId !== owner) throw s3errors.accessDenied();
  const list = typeof doc.AccessControlList === 'object' ? (doc.AccessControlList.Grant ?? []) : [];
  const out: Grant[] = [];
  for (const g of list) {
    const perm = text(g.Permission) as Permission;
    if (!PERMISSIONS.includes(perm)) throw s3errors.malformedAcl();
    const ge = g.Grantee;
    if (!ge) throw s3errors.malformedAcl();
    const id = text(ge.ID);
    const uri = text(ge.URI);
    const email = text(ge.EmailAddress);
    let grantee: Grantee;
    if (id !== undefined) grantee = await resolveGrantee(r, 'id', id);
    else if (uri !== undefined) grantee = await resolveGrantee(r, 'uri', uri);
    else if (email !== undefined) grantee = await resolveGrantee(r, 'emailAddress', email);
    else throw s3errors.malformedAcl();
    out.push({ grantee, permission: perm });
  }
  return out;
}

const RANK: readonly Permission[] = ['READ', 'WRITE', 'READ_ACP', 'WRITE_ACP', 'FULL_CONTROL'];

/**
 * Grants in the order RGW lists them: groups, then accounts; each grantee's permissions READ,
 * WRITE, READ_ACP, WRITE_ACP, FULL_CONTROL (clients that compare lists rely on it).
 */
function ordered(grants: Grant[]): Grant[] {
  const keyOf = (g: Grant) => (g.grantee.type === 'Group' ? g.grantee.uri : g.grantee.id);
  const groups = GROUPS.filter((uri) =>
    grants.some((g) => g.grantee.type === 'Group' && g.grantee.uri === uri),
  );
  const users = [...new Set(grants.filter((g) => g.grantee.type === 'CanonicalUser').map(keyOf))];
  const byRank = (a: Grant, b: Grant) => RANK.indexOf(a.permission) - RANK.indexOf(b.permission);
  return [...groups, ...users].flatMap((k) => grants.filter((g) => keyOf(g) === k).sort(byRank));
}

/** The AccessControlPolicy document of a resource's grants. */
export function aclDocument(owner: string, grants: Grant[]): string {
  return xml('AccessControlPolicy', {
    Owner: { ID: owner, DisplayName: owner },
    AccessControlList: {
      Grant: ordered(grants).map((g) => ({
        Grantee:
          g.grantee.type === 'Group'
            ? { '@_xmlns:xsi': XSI, '@_xsi:type': 'Group', URI: g.grantee.uri }
            : {
                '@_xmlns:xsi': XSI,
                '@_xsi:type': 'CanonicalUser',
                ID: g.grantee.id,
                DisplayName: g.grantee.id,
              },
        Permission: g.permission,
      })),
    },
  });
}

/** The document of a canned ACL (the control plane's `acl_xml`). */
export function cannedAclDocument(acl: string, owner: string, grants: string | null = null) {
  return aclDocument(owner, grantsOf({ acl, grants }, owner));
}

/** Whether grants open the resource to everyone or every signed-in account. */
export function isPublic(grants: Grant[]): boolean {
  return grants.some(
    (g) =>
      g.grantee.type === 'Group' &&
      (g.grantee.uri === ALL_USERS || g.grantee.uri === AUTHENTICATED_USERS),
  );
}

/**
 * The ACL a write asks for: `x-amz-acl` (a canned ACL) or the `x-amz-grant-*` headers (not
 * both), as grants on a resource of `owner` in `bucketOwner`'s bucket; undefined when neither.
 */
export async function requestGrants(
  headers: Record<string, string | string[] | undefined>,
  owner: string,
  bucketOwner: string,
  r: GranteeResolver,
): Promise<Grant[] | undefined> {
  const canned = headers['x-amz-acl'];
  const granted = await grantsFromHeaders(headers, r);
  if (canned !== undefined && granted !== undefined)
    throw s3errors.invalidRequest('Specifying both Canned ACLs and Header Grants is not allowed');
  if (canned !== undefined) {
    const v = Array.isArray(canned) ? canned.join(',') : canned;
    if (!(CANNED as readonly string[]).includes(v))
      throw s3errors.invalidArgument(`Unsupported canned ACL ${v}`);
    return cannedGrants(v, owner, bucketOwner);
  }
  return granted;
}
