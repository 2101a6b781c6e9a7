import { parseGlobalGrants } from '../../auth/grants.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';

/** Bucket labels: 3 to 63 lower-case letters, digits and hyphens, starting and ending alphanumeric. */
const LABEL_RE = /^[a-z0-9][a-z0-9-]*[a-z0-9]$/;

/** Why a bucket label is refused, or undefined. */
export function bucketLabelProblem(label: string): string | undefined {
  if (label.length < 3 || label.length > 63) return 'Label must be 3 to 63 characters long.';
  if (!LABEL_RE.test(label))
    return 'Label must contain only lower-case letters, numbers and hyphens, and start and end with a letter or number.';
  return undefined;
}

/** Accounts with a negative balance cannot create buckets or keys (spec, document 1, rule 5). */
export async function assertPositiveStanding(db: Database, accountId: number): Promise<void> {
  const acct = await db.db
    .selectFrom('accounts')
    .select('balance_cents')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (acct && acct.balance_cents < 0) {
    throw errors.reason(
      'Your account has a negative balance. Please make a payment before creating object storage resources.',
    );
  }
}

export const OBJECT_URL_METHODS = ['GET', 'PUT', 'POST', 'DELETE'] as const;

/** PEM as the API carries it: real line breaks, or the two characters `\` `n`. */
export function pemFromApi(text: string): string {
  return text.replace(/\\n/g, '\n').trim();
}

/** The creator of a key as the data plane reads it (null columns: no creator recorded). */
export interface KeyCreator {
  restricted: number | null;
  global_grants: string | null;
}

/**
 * Whether a key may sign data-plane requests: keys without a recorded creator and keys of
 * unrestricted users may; a restricted creator's key only while the creator keeps
 * `account_access: read_write`, the grant that creating it needed. A key does not outlive its
 * creator (the row is removed with the user).
 */
export function keyUsable(creator: KeyCreator | undefined): boolean {
  if (!creator || creator.restricted === null || Number(creator.restricted) === 0) return true;
  return parseGlobalGrants(creator.global_grants).account_access === 'read_write';
}
