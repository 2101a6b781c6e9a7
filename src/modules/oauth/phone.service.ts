import { randomInt } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Principal } from '../../auth/principal.js';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { hashesEqual, hashSecret } from '../../lib/secrets.js';
import { isoSeconds } from '../../lib/time.js';

/** An SMS code is good for 10 minutes and 5 tries. */
const CODE_TTL_MS = 10 * 60 * 1000;
const MAX_ATTEMPTS = 5;

export const PhoneNumberBody = Type.Object({
  iso_code: Type.String({ minLength: 2, maxLength: 2 }),
  phone_number: Type.String({ minLength: 1, maxLength: 32 }),
});
export const PhoneVerifyBody = Type.Object({ otp_code: Type.String({ maxLength: 16 }) });

/**
 * `/profile/phone-number`: a number is verified by a code sent by SMS. Stratus sends no SMS: the
 * message goes to an outbox that `stratus admin sms --username U` prints.
 */
export class PhoneService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async send(p: Principal, body: { iso_code: string; phone_number: string }): Promise<void> {
    const parsed = parsePhoneNumberFromString(
      body.phone_number,
      body.iso_code.toUpperCase() as never,
    );
    if (!parsed?.isValid())
      throw errors.invalidField('phone_number', 'Not a valid phone number for that iso_code');
    const number = parsed.number;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const nowMs = this.clock.nowMs();
    await this.db.transaction(async (tx) => {
      const values = {
        phone_number: number,
        code_hash: hashSecret(code),
        expires_ms: nowMs + CODE_TTL_MS,
        attempts: 0,
      };
      await tx.db
        .insertInto('phone_verifications')
        .values({ user_id: p.userId, ...values })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
        .execute();
      await tx.db
        .insertInto('sms_outbox')
        .values({
          user_id: p.userId,
          phone_number: number,
          body: `Your Stratus verification code is ${code}`,
          created: isoSeconds(nowMs),
        })
        .execute();
    });
  }

  async verify(p: Principal, code: string): Promise<void> {
    const nowMs = this.clock.nowMs();
    const outcome = await this.db.transaction(async (tx) => {
      const v = await tx.db
        .selectFrom('phone_verifications')
        .selectAll()
        .where('user_id', '=', p.userId)
        .executeTakeFirst();
      if (!v || v.expires_ms <= nowMs || v.attempts >= MAX_ATTEMPTS) return 'none' as const;
      if (!hashesEqual(hashSecret(code.trim()), v.code_hash)) {
        await tx.db
          .updateTable('phone_verifications')
          .set({ attempts: v.attempts + 1 })
          .where('user_id', '=', p.userId)
          .execute();
        return 'wrong' as const;
      }
      await tx.db.deleteFrom('phone_verifications').where('user_id', '=', p.userId).execute();
      await tx.db
        .updateTable('users')
        .set({ verified_phone_number: v.phone_number })
        .where('id', '=', p.userId)
        .execute();
      await principalChanged(tx, { kind: 'user', id: p.userId });
      return 'ok' as const;
    });
    if (outcome === 'none')
      throw errors.reason('No verification code is pending; request one first');
    if (outcome === 'wrong') throw errors.invalidField('otp_code', 'Invalid verification code');
  }

  async delete(p: Principal): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.db.deleteFrom('phone_verifications').where('user_id', '=', p.userId).execute();
      await tx.db
        .updateTable('users')
        .set({ verified_phone_number: null })
        .where('id', '=', p.userId)
        .execute();
      await principalChanged(tx, { kind: 'user', id: p.userId });
    });
  }
}

/** The simulated SMS sent to a user, newest first (the operator CLI). */
export function smsOf(db: Database, username: string) {
  return db.db
    .selectFrom('sms_outbox')
    .innerJoin('users', 'users.id', 'sms_outbox.user_id')
    .select(['sms_outbox.phone_number as to', 'sms_outbox.body', 'sms_outbox.created'])
    .where((eb) => eb(eb.fn('lower', ['users.username']), '=', username.toLowerCase()))
    .orderBy('sms_outbox.id', 'desc')
    .limit(20)
    .execute();
}
