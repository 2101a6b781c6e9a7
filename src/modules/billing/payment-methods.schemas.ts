import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, PageOf } from '../../http/schemas/common.js';

/** What is kept of a card: its network, last four digits and expiry (`MM/YYYY`). */
export const CreditCardDataSchema = Type.Object({
  card_type: Type.String(),
  last_four: Type.String(),
  expiry: Type.String({ description: 'MM/YYYY' }),
});

export const PaymentMethodSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: ['credit_card', 'google_pay', 'paypal'] }),
  is_default: Type.Boolean(),
  created: DateTime(),
  data: CreditCardDataSchema,
});
export type PaymentMethod = Static<typeof PaymentMethodSchema>;

export const PaymentMethodPage = PageOf(PaymentMethodSchema);

/** The card fields as the reference's CreditCard; their rules are checked by the service. */
export const CreditCardBody = Type.Object({
  card_number: Type.String({ description: '14 to 24 digits, no spaces or hyphens' }),
  expiry_month: Type.Integer({ description: '1 to 12' }),
  expiry_year: Type.Integer({ description: 'four digits; not before the current month' }),
  cvv: Type.String({ description: '3 or 4 digits' }),
});
export type CreditCardInput = Static<typeof CreditCardBody>;

export const PaymentMethodCreateBody = Type.Object({
  type: Type.String({ enum: ['credit_card'] }),
  is_default: Type.Boolean(),
  data: CreditCardBody,
});
export type PaymentMethodCreate = Static<typeof PaymentMethodCreateBody>;

export const PaymentMethodParams = IdParams('paymentMethodId');
