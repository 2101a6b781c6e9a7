import { createRequire } from 'node:module';
import type zxcvbnFn from 'zxcvbn';
import type { FieldErrors } from '../../errors/errors.js';

/** zxcvbn and its dictionaries are loaded on the first password check, not at start-up. */
let zxcvbn: typeof zxcvbnFn | undefined;

/** The real service's message for a weak password. */
export const WEAK_PASSWORD = 'Password does not meet strength requirement';

/** zxcvbn score (0..4) a password must reach. */
export const MIN_PASSWORD_SCORE = 2;

export function passwordIsStrong(pw: string, userInputs: string[] = []): boolean {
  zxcvbn ??= createRequire(import.meta.url)('zxcvbn') as typeof zxcvbnFn;
  return zxcvbn(pw.slice(0, 128), userInputs).score >= MIN_PASSWORD_SCORE;
}

/** Checks a root password (7..128, strength); reports on `field`. */
export function checkPassword(
  fe: FieldErrors,
  field: string,
  pw: string | undefined,
  userInputs: string[] = [],
): void {
  if (pw === undefined) return;
  if (pw.length < 7 || pw.length > 128) {
    fe.add(field, 'Length must be 7-128 characters');
    return;
  }
  if (!passwordIsStrong(pw, userInputs)) fe.add(field, WEAK_PASSWORD);
}

/**
 * Instance labels (spec): 3..64 characters, alphanumerics, `-`, `_`, `.`; begins and ends with an
 * alphanumeric; no two `-`, `_` or `.` in a row.
 */
export function instanceLabelProblem(label: string): string | undefined {
  if (label.length < 3 || label.length > 64) return 'Length must be 3-64 characters';
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/.test(label)) {
    return 'Label must begin and end with a letter or number, and contain only letters, numbers, dashes, underscores and periods';
  }
  if (/--|__|\.\./.test(label))
    return 'Label must not contain two dashes, underscores or periods in a row';
  return undefined;
}

/** Tags: 3..50 characters each (reference Tag label). */
export function checkTags(fe: FieldErrors, tags: readonly string[] | undefined): void {
  tags?.forEach((t, i) => {
    if (t.length < 3 || t.length > 50) fe.add(`tags.${i}`, 'Length must be 3-50 characters');
  });
}

/** Cloud-config user data: base64, at most 65535 bytes once decoded. */
export const USER_DATA_MAX_BYTES = 65535;

export function userDataProblem(b64: string): string | undefined {
  const clean = b64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0)
    return 'user_data must be base64 encoded';
  const bytes = Buffer.from(clean, 'base64').length;
  if (bytes > USER_DATA_MAX_BYTES)
    return `user_data must be at most ${USER_DATA_MAX_BYTES} bytes before encoding`;
  return undefined;
}

/** StackScript data: valid JSON of at most 65535 characters. */
const STACKSCRIPT_DATA_MAX = 65535;

function stackscriptDataProblem(data: unknown): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(data);
  } catch {
    return 'stackscript_data must be valid JSON';
  }
  if (text.length > STACKSCRIPT_DATA_MAX)
    return `stackscript_data must be at most ${STACKSCRIPT_DATA_MAX} characters`;
  return undefined;
}

/**
 * StackScripts of instance and disk create: none exist yet, so any `stackscript_id` is not
 * found; `stackscript_data` must be valid JSON within its bound and needs a `stackscript_id`.
 */
export function checkStackScript(
  fe: FieldErrors,
  b: { stackscript_id?: number | null; stackscript_data?: unknown },
): void {
  if (b.stackscript_id !== undefined && b.stackscript_id !== null)
    fe.add('stackscript_id', 'StackScript not found');
  if (b.stackscript_data !== undefined && b.stackscript_data !== null) {
    const sp = stackscriptDataProblem(b.stackscript_data);
    if (sp) fe.add('stackscript_data', sp);
    else if (b.stackscript_id === undefined || b.stackscript_id === null) {
      fe.add('stackscript_data', 'stackscript_data needs a stackscript_id');
    }
  }
}

/** Default alert thresholds; `cpu` is 90% per core. */
export function defaultAlerts(vcpus: number) {
  return { cpu: 90 * vcpus, network_in: 10, network_out: 10, transfer_quota: 80, io: 10000 };
}

/** Swap disk size used when deploying from an image unless `swap_size` is given. */
export const DEFAULT_SWAP_MB = 512;
