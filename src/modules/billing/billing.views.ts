import { parseJson } from '../../db/database.js';
import type { Invoice, InvoiceItem, Payment } from './billing.schemas.js';
import type { InvoiceItemsTable, InvoicesTable, PaymentsTable } from './billing.table.js';

export type Row<T> = Omit<T, 'id'> & { id: number };

const usd = (cents: number): number => Number(cents) / 100;

export function toInvoice(r: Row<InvoicesTable>, billingSource: string): Invoice {
  return {
    id: r.id,
    date: r.date,
    label: r.label,
    subtotal: usd(r.subtotal_cents),
    tax: usd(r.tax_cents),
    tax_summary: parseJson<{ tax: number; name: string }[]>(r.tax_summary, []),
    total: usd(r.total_cents),
    billing_source: billingSource,
  };
}

export function toInvoiceItem(r: Row<InvoiceItemsTable>): InvoiceItem {
  return {
    amount: usd(r.amount_cents),
    tax: usd(r.tax_cents),
    total: usd(Number(r.amount_cents) + Number(r.tax_cents)),
    from: r.from,
    label: r.label,
    quantity: r.quantity,
    to: r.to,
    type: r.type,
    unit_price: r.unit_price,
    region: r.region,
  };
}

export const toPayment = (r: Row<PaymentsTable>): Payment => ({
  id: r.id,
  date: r.date,
  usd: usd(r.usd_cents),
});

/** `$12.50` / `12.50` to cents (the schema has checked the form). */
export const parseUsd = (s: string): number => {
  const [whole, cents] = s.replace(/^\$/, '').split('.') as [string, string];
  return Number(whole) * 100 + Number(cents);
};
