import type { BucketRow, ObjectRow } from '../objects.repository.js';
import { header } from './s3.auth.js';
import type { S3Call } from './s3.context.js';
import { s3errors } from './s3.errors.js';
import { rootOf, text } from './s3.xml.js';

/**
 * Object lock, as S3 and Ceph RGW keep it: enabled when a bucket is created (which turns
 * versioning on for good); a version may carry a retention (GOVERNANCE or COMPLIANCE, until a
 * date) and a legal hold. A locked version cannot be deleted or overwritten in place: COMPLIANCE
 * until its date, GOVERNANCE unless the request bypasses it (`x-amz-bypass-governance-retention`
 * by a caller allowed to), a legal hold until it is lifted. Deletes without a version id only
 * add a delete marker and are never refused.
 */

export type LockMode = 'GOVERNANCE' | 'COMPLIANCE';

export interface DefaultRetention {
  mode: LockMode;
  days?: number;
  years?: number;
}

const DAY_MS = 86_400_000;

/** Whether a version's lock forbids removing it now (`bypass`: GOVERNANCE is bypassed). */
export function lockBlocksDelete(row: ObjectRow, nowMs: number, bypass: boolean): boolean {
  if (row.legal_hold === 1) return true;
  if (!row.lock_mode || !row.lock_until) return false;
  if (Date.parse(row.lock_until) <= nowMs) return false;
  return row.lock_mode === 'COMPLIANCE' || !bypass;
}

/** Whether the request asks to bypass GOVERNANCE retention. */
export function bypassGovernance(c: S3Call): boolean {
  return (header(c.req, 'x-amz-bypass-governance-retention') ?? '').toLowerCase() === 'true';
}

/** Parses an ObjectLockConfiguration document. */
export function parseLockConfig(body: string): DefaultRetention | null {
  const doc = rootOf<{
    ObjectLockEnabled?: unknown;
    Rule?: { DefaultRetention?: { Mode?: unknown; Days?: unknown; Years?: unknown } }[];
  }>(body, 'ObjectLockConfiguration');
  if (text(doc.ObjectLockEnabled) !== 'Enabled') throw s3errors.malformedXml();
  const rule = doc.Rule?.[0];
  if (!rule) return null;
  const d = rule.DefaultRetention;
  if (!d) throw s3errors.malformedXml();
  const mode = text(d.Mode);
  if (mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') throw s3errors.malformedXml();
  const days = text(d.Days);
  const years = text(d.Years);
  if ((days === undefined) === (years === undefined)) throw s3errors.malformedXml();
  const n = Number(days ?? years);
  if (!/^-?\d+$/.test(days ?? years ?? '') || n <= 0)
    throw s3errors.invalidRetentionPeriod(
      'Default retention period must be a positive integer value.',
    );
  return { mode, ...(days !== undefined ? { days: n } : { years: n }) };
}

/** The ObjectLockConfiguration document of a bucket. */
export function lockConfigDocument(b: BucketRow) {
  const d = b.lock_config ? (JSON.parse(b.lock_config) as DefaultRetention) : null;
  return {
    ObjectLockEnabled: 'Enabled',
    ...(d
      ? {
          Rule: {
            DefaultRetention: {
              Mode: d.mode,
              ...(d.days !== undefined ? { Days: d.days } : { Years: d.years }),
            },
          },
        }
      : {}),
  };
}

const isoMs = (ms: number) => new Date(ms).toISOString();

/**
 * The lock a new version gets: the request's `x-amz-object-lock-*` headers (mode and date
 * together), else the bucket's default retention; a legal hold from its header. Lock headers on
 * a bucket without object lock are refused.
 */
export function lockForWrite(
  c: S3Call,
  b: BucketRow,
): { lockMode: string | null; lockUntil: string | null; legalHold: boolean } {
  const mode = header(c.req, 'x-amz-object-lock-mode');
  const until = header(c.req, 'x-amz-object-lock-retain-until-date');
  const hold = header(c.req, 'x-amz-object-lock-legal-hold');
  if (b.object_lock !== 1) {
    if (mode !== undefined || until !== undefined || hold !== undefined)
      throw s3errors.invalidRequest('Bucket is missing ObjectLockConfiguration');
    return { lockMode: null, lockUntil: null, legalHold: false };
  }
  if (hold !== undefined && hold !== 'ON' && hold !== 'OFF')
    throw s3errors.invalidArgument('Legal Hold must be either of ON or OFF');
  if ((mode === undefined) !== (until === undefined))
    throw s3errors.invalidArgument(
      'x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied',
    );
  if (mode !== undefined && until !== undefined) {
    if (mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE')
      throw s3errors.invalidArgument('Unknown wormMode directive.');
    const ms = Date.parse(until);
    if (Number.isNaN(ms)) throw s3errors.invalidArgument('The retain until date must be a date');
    if (ms <= c.nowMs)
      throw s3errors.invalidArgument('The retain until date must be in the future!');
    return { lockMode: mode, lockUntil: isoMs(ms), legalHold: hold === 'ON' };
  }
  const d = b.lock_config ? (JSON.parse(b.lock_config) as DefaultRetention) : null;
  if (!d) return { lockMode: null, lockUntil: null, legalHold: hold === 'ON' };
  const ms = c.nowMs + (d.days !== undefined ? d.days : (d.years ?? 0) * 365) * DAY_MS;
  return { lockMode: d.mode, lockUntil: isoMs(ms), legalHold: hold === 'ON' };
}

/** Parses a Retention document: a mode and a future date (or neither, to remove it). */
export function parseRetention(
  body: string,
  nowMs: number,
): { mode: LockMode; until: string } | null {
  const doc = rootOf<{ Mode?: unknown; RetainUntilDate?: unknown }>(body, 'Retention');
  const mode = text(doc.Mode);
  const until = text(doc.RetainUntilDate);
  if (mode === undefined && until === undefined) return null;
  if (mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') throw s3errors.malformedXml();
  const ms = Date.parse(until ?? '');
  if (Number.isNaN(ms)) throw s3errors.malformedXml();
  if (ms <= nowMs) throw s3errors.invalidArgument('The retain until date must be in the future!');
  return { mode, until: isoMs(ms) };
}

/** Parses a LegalHold document (`ON` or `OFF`). */
export function parseLegalHold(body: string): boolean {
  const doc = rootOf<{ Status?: unknown }>(body, 'LegalHold');
  const s = text(doc.Status);
  if (s !== 'ON' && s !== 'OFF') throw s3errors.malformedXml();
  return s === 'ON';
}

/**
 * Whether a retention change is allowed (as RGW decides): COMPLIANCE can only be lengthened in
 * the same mode; GOVERNANCE can be lengthened, and shortened, removed or changed to the other
 * mode only with the bypass.
 */
export function checkRetentionChange(
  row: ObjectRow,
  next: { mode: LockMode; until: string } | null,
  nowMs: number,
  bypass: boolean,
): void {
  if (!row.lock_mode || !row.lock_until || Date.parse(row.lock_until) <= nowMs) return;
  const shorter = next === null || Date.parse(next.until) < Date.parse(row.lock_until);
  const modeChange = next === null || next.mode !== row.lock_mode;
  if (row.lock_mode === 'COMPLIANCE') {
    if (shorter || modeChange) throw s3errors.accessDenied();
    return;
  }
  if ((shorter || modeChange) && !bypass) throw s3errors.accessDenied();
}
