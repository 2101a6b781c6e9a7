import type { Sealer } from '../../platform/sealer.js';
import type { Database } from '../../db/database.js';
import { hashSecret } from '../../lib/secrets.js';
import type { Credentials } from './credentials.js';
import { totpStep } from './totp.js';

/**
 * Checks a sign-in's second factor: a TOTP code, each time step accepted once, or the one-time
 * scratch code. Each is consumed by a conditional update, so two sign-ins racing with the same
 * code cannot both pass.
 */
export async function checkSecondFactor(
  db: Database,
  sealer: Sealer,
  creds: Credentials,
  code: string,
  nowMs: number,
): Promise<boolean> {
  const sealed = creds.tfa_secret;
  if (!sealed) return true;
  const given = code.trim();
  const step = totpStep(await sealer.open(sealed), given, nowMs);
  if (step !== undefined) {
    const r = await db.db
      .updateTable('user_credentials')
      .set({ tfa_last_step: step })
      .where('user_id', '=', creds.user_id)
      .where((eb) => eb.or([eb('tfa_last_step', 'is', null), eb('tfa_last_step', '<', step)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) return true;
  }
  if (given === '') return false;
  const r = await db.db
    .updateTable('user_credentials')
    .set({ tfa_scratch_hash: null })
    .where('user_id', '=', creds.user_id)
    .where('tfa_scratch_hash', '=', hashSecret(given))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
