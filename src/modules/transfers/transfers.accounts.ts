import type { Database } from '../../db/database.js';
import type { ApiError } from '../../errors/api-error.js';
import { errors } from '../../errors/errors.js';

/**
 * The reference's conditions on the two accounts of a transfer (digest §6.18): the sender has no
 * past-due balance (an invoiced amount not paid: `balance` above zero), and the receiver has a
 * payment method to be billed for what it takes over.
 */
export async function senderRefusal(
  db: Database,
  accountId: number,
): Promise<ApiError | undefined> {
  const row = await db.db
    .selectFrom('accounts')
    .select('balance_cents')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (row && Number(row.balance_cents) > 0) {
    return errors.reason(
      'This account has a past-due balance; pay it before transferring services.',
    );
  }
  return undefined;
}

export async function receiverRefusal(
  db: Database,
  accountId: number,
): Promise<ApiError | undefined> {
  const method = await db.db
    .selectFrom('payment_methods')
    .select('id')
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .executeTakeFirst();
  if (!method) {
    return errors.reason('A payment method is required to accept a transfer; add one first.');
  }
  return undefined;
}
