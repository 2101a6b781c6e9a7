import type { ObjectAcl } from '../objects.table.js';
import { s3errors } from './s3.errors.js';
import { parseXml } from './s3.xml.js';

const ALL = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTH = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';

/**
 * The canned ACL an AccessControlPolicy document amounts to: grants to AllUsers and
 * AuthenticatedUsers map to the canned ACLs; grants to other users are kept as `custom`.
 */
export function aclFromXml(text: string): ObjectAcl {
  if (text.trim() === '') throw s3errors.malformedXml();
  const doc = parseXml(text).AccessControlPolicy as
    | {
        AccessControlList?: {
          Grant?: { Grantee?: { URI?: string; ID?: string }; Permission?: string }[];
        };
      }
    | undefined;
  if (!doc) throw s3errors.malformedXml();
  const grants = doc.AccessControlList?.Grant ?? [];
  const has = (uri: string, perm: string) =>
    grants.some((g) => g.Grantee?.URI === uri && g.Permission === perm);
  const owners = grants.filter((g) => g.Grantee?.ID !== undefined);
  if (owners.length > 1) return 'custom';
  if (has(ALL, 'WRITE')) return 'public-read-write';
  if (has(ALL, 'READ')) return 'public-read';
  if (has(AUTH, 'READ')) return 'authenticated-read';
  return 'private';
}
