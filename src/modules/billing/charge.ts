import type { Database } from '../../db/database.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { addToBalance } from './invoices.js';
import { type ChargeOutcome, cardFor, charge } from './processor.js';

/**
 * Charges `cents` on a card of the account (the default one unless named) through the
 * processor simulator. On success a payment is recorded, the balance goes down by the amount
 * and a `payment_submitted` event is written; a declined or failed charge changes nothing.
 */
export async function chargeAccount(
  db: Database,
  events: EventWriter,
  a: {
    accountId: number;
    cents: number;
    nowMs: number;
    paymentMethodId?: number;
    invoiceId?: number;
    username: string | null;
  },
): Promise<ChargeOutcome & { paymentId?: number }> {
  const outcome = charge(await cardFor(db, a.accountId, a.paymentMethodId));
  if (!outcome.ok) return outcome;
  const account = await db.db
    .selectFrom('accounts')
    .select('euuid')
    .where('id', '=', a.accountId)
    .executeTakeFirstOrThrow();
  const row = await db.db
    .insertInto('payments')
    .values({
      account_id: a.accountId,
      date: isoSeconds(a.nowMs),
      usd_cents: a.cents,
      payment_method_id: outcome.paymentMethodId,
      invoice_id: a.invoiceId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await addToBalance(db, a.accountId, -a.cents);
  await events.record(db, {
    accountId: a.accountId,
    action: 'payment_submitted',
    entity: entityRefs.account(account.euuid),
    status: 'notification',
    username: a.username,
  });
  return { ...outcome, paymentId: row.id };
}
