import type { Generated } from 'kysely';

/**
 * A payment method of an account. Only what the API shows is kept: the card's type, its last four
 * digits and its expiry; the number and the CVV are checked and dropped, never stored.
 */
export interface PaymentMethodsTable {
  id: Generated<number>;
  account_id: number;
  type: 'credit_card';
  card_type: string;
  last_four: string;
  expiry_month: number;
  expiry_year: number;
  /** 0/1 */
  is_default: number;
  /** 0/1: a deleted method is deactivated, not removed (it still counts towards the daily limit). */
  active: number;
  created: string;
  /** Epoch ms of the addition, for the limit of additions per day. */
  created_ms: number;
}

export interface BillingTables extends BillingEngineTables {
  payment_methods: PaymentMethodsTable;
}

/**
 * A billable period: one line of what an account is charged for (an instance's type, its
 * backups add-on, an extra IPv4, a volume's GB, a NodeBalancer, object storage), from `from_ms`
 * to `to_ms` (null while open). A change of what is billed closes the fact and opens another.
 */
export interface BillingFactsTable {
  id: Generated<number>;
  account_id: number;
  kind: string;
  /** The entity the fact is about (`compute`, `volume`, `nodebalancer`, `account`). */
  entity_type: string;
  entity_id: number;
  /** What is billed within the entity (a type id, an address, `storage`…): one open fact each. */
  ref: string;
  label: string;
  region: string | null;
  quantity: number;
  /** Unit prices in micro-dollars (an hourly price is a fraction of a cent). */
  hourly_micros: number;
  monthly_micros: number;
  from_ms: number;
  to_ms: number | null;
}

export interface InvoicesTable {
  id: Generated<number>;
  account_id: number;
  /** `YYYY-MM`: unique per account, so a month is invoiced once. */
  period: string;
  date: string;
  label: string;
  subtotal_cents: number;
  tax_cents: number;
  total_cents: number;
  /** JSON `[{name, tax}]`. */
  tax_summary: string;
}

export interface InvoiceItemsTable {
  id: Generated<number>;
  invoice_id: number;
  label: string;
  from: string;
  to: string;
  quantity: number;
  unit_price: string;
  amount_cents: number;
  tax_cents: number;
  region: string | null;
  type: 'hourly' | 'misc';
}

export interface PaymentsTable {
  id: Generated<number>;
  account_id: number;
  date: string;
  usd_cents: number;
  payment_method_id: number | null;
  /** The invoice the automatic charge paid (null for payments made through the API). */
  invoice_id: number | null;
}

export interface BillingEngineTables {
  billing_facts: BillingFactsTable;
  invoices: InvoicesTable;
  invoice_items: InvoiceItemsTable;
  payments: PaymentsTable;
}
