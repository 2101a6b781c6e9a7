import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';

/**
 * The payment processor simulator. Stratus never keeps a card number (only its last four
 * digits), so the outcome of a charge is decided by the last four digits of the card, as the
 * test cards documented in docs/fidelity.md give them:
 * - `4111 1111 1111 1111` (and every other card): the charge succeeds;
 * - `4000 0000 0000 0002` (last four `0002`): declined by the issuer;
 * - `4000 0000 0000 0119` (last four `0119`): the processor fails (an error, nothing charged).
 */
export const DECLINED_LAST_FOUR = '0002';
export const PROCESSOR_ERROR_LAST_FOUR = '0119';

export type ChargeOutcome =
  | { ok: true; paymentMethodId: number }
  | { ok: false; reason: string; paymentMethodId: number | null };

export const DECLINED_REASON = 'The card was declined by its issuer.';
export const PROCESSOR_ERROR_REASON =
  'The payment processor could not process the charge. Nothing was charged; try again later.';
export const NO_METHOD_REASON = 'The account has no payment method to charge.';

/** The card to charge: the given method of the account (400 if none such), or its default. */
export async function cardFor(
  db: Database,
  accountId: number,
  paymentMethodId?: number,
): Promise<{ id: number; last_four: string } | undefined> {
  let q = db.db
    .selectFrom('payment_methods')
    .select(['id', 'last_four'])
    .where('account_id', '=', accountId)
    .where('active', '=', 1);
  q =
    paymentMethodId === undefined
      ? q.where('is_default', '=', 1)
      : q.where('id', '=', paymentMethodId);
  const card = await q.executeTakeFirst();
  if (!card && paymentMethodId !== undefined)
    throw errors.invalidField('payment_method_id', 'Payment method not found.');
  return card;
}

/** Charges `cents` on a card; the simulator answers at once. */
export function charge(card: { id: number; last_four: string } | undefined): ChargeOutcome {
  if (!card) return { ok: false, reason: NO_METHOD_REASON, paymentMethodId: null };
  if (card.last_four === DECLINED_LAST_FOUR)
    return { ok: false, reason: DECLINED_REASON, paymentMethodId: card.id };
  if (card.last_four === PROCESSOR_ERROR_LAST_FOUR)
    return { ok: false, reason: PROCESSOR_ERROR_REASON, paymentMethodId: card.id };
  return { ok: true, paymentMethodId: card.id };
}
