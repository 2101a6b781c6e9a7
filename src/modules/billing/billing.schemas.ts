import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IdParams, Nullable, PageOf } from '../../http/schemas/common.js';
import type { PriceRecord } from './prices.js';

export const InvoiceSchema = Type.Object({
  id: Type.Integer(),
  date: DateTime(),
  label: Type.String(),
  subtotal: Type.Number({ description: 'US dollars before tax' }),
  tax: Type.Number(),
  tax_summary: Type.Array(Type.Object({ tax: Type.Number(), name: Type.String() })),
  total: Type.Number(),
  billing_source: Type.String({ enum: ['partner', 'compute'] }),
});
export type Invoice = Static<typeof InvoiceSchema>;
export const InvoicePage = PageOf(InvoiceSchema);

export const InvoiceItemSchema = Type.Object({
  amount: Type.Number(),
  tax: Type.Number(),
  total: Type.Number(),
  from: DateTime(),
  label: Type.String(),
  quantity: Type.Integer({ description: 'billed hours (hourly items), GB (misc items)' }),
  to: DateTime(),
  type: Type.String({ enum: ['hourly', 'misc'] }),
  unit_price: Type.String(),
  region: Nullable(Type.String()),
});
export type InvoiceItem = Static<typeof InvoiceItemSchema>;
export const InvoiceItemPage = PageOf(InvoiceItemSchema);

export const PaymentSchema = Type.Object({
  id: Type.Integer(),
  date: DateTime(),
  usd: Type.Number({ description: 'US dollars' }),
});
export type Payment = Static<typeof PaymentSchema>;
export const PaymentPage = PageOf(PaymentSchema);

export const PaymentCreateBody = Type.Object({
  usd: Type.String({
    pattern: '^\\$?\\d+\\.\\d{2}$',
    description: 'dollars with two decimals, optionally after `$`; no commas',
  }),
  payment_method_id: Type.Optional(Type.Integer()),
  cvv: Type.Optional(Type.String()),
});
export type PaymentCreate = Static<typeof PaymentCreateBody>;

export const CancelBody = Type.Object({ comments: Type.Optional(Type.String()) });
export const CancelResponse = Type.Object({ survey_link: Type.String() });

export const InvoiceParams = IdParams('invoiceId');
export const PaymentParams = IdParams('paymentId');

const PriceSchema = Type.Object({ hourly: Type.Number(), monthly: Nullable(Type.Number()) });
export const PriceRecordSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  price: PriceSchema,
  region_prices: Type.Array(
    Type.Object({ id: Type.String(), hourly: Type.Number(), monthly: Nullable(Type.Number()) }),
  ),
  transfer: Type.Integer(),
});
export const PriceRecordPage = PageOf(PriceRecordSchema);
export type { PriceRecord };
