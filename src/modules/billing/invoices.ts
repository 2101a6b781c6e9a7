import type { InvoiceItemsTable } from './billing.table.js';
import type { Database } from '../../db/database.js';
import { isoSeconds } from '../../lib/time.js';
import { bucketUsage } from '../object-storage/objects.repository.js';
import { accrue, factsOverlapping, microsToCents } from './facts.js';
import { periodOf } from './months.js';
import {
  NETWORK_TRANSFER_PRICES,
  OBJECT_STORAGE_INCLUDED_GB,
  OBJECT_STORAGE_OVERAGE_PER_GB,
  OBJECT_STORAGE_PRICES,
  toMicros,
} from './prices.js';

const GB = 1024 ** 3;

/** An invoice item before its invoice exists (tax is added when the invoice is written). */
type ItemDraft = Omit<InvoiceItemsTable, 'id' | 'invoice_id' | 'tax_cents'>;

/** A unit price as the API writes it: dollars, no trailing zeros (`"0.0075"`). */
export function usdText(micros: number): string {
  return String(Number((micros / 1e6).toFixed(6)));
}

/**
 * The items of an account's bill for [startMs, endMs) (a whole month, or the month so far):
 * one `hourly` item per billable period (billed hours × unit price, capped at the monthly
 * price), and `misc` items for object storage beyond its included storage and transfer.
 */
export async function billItems(
  db: Database,
  accountId: number,
  startMs: number,
  endMs: number,
  opts: { transfer: boolean } = { transfer: true },
): Promise<ItemDraft[]> {
  const items: ItemDraft[] = [];
  let objectStorage = false;
  for (const f of await factsOverlapping(db, accountId, startMs, endMs)) {
    const a = accrue(f, startMs, endMs);
    if (!a) continue;
    if (f.kind === 'object_storage') objectStorage = true;
    items.push({
      label: f.label,
      from: isoSeconds(a.fromMs),
      to: isoSeconds(a.toMs - 1000),
      quantity: a.hours,
      unit_price: usdText(Number(f.hourly_micros) * f.quantity),
      amount_cents: microsToCents(a.micros),
      region: f.region,
      type: 'hourly',
    });
  }
  if (!objectStorage) return items;
  const misc = (label: string, gb: number, perGb: number): ItemDraft => ({
    label,
    from: isoSeconds(startMs),
    to: isoSeconds(endMs - 1000),
    quantity: gb,
    unit_price: String(perGb),
    amount_cents: microsToCents(gb * toMicros(perGb)),
    region: null,
    type: 'misc',
  });
  const stored = (await bucketUsage(db, accountId)).reduce((n, b) => n + b.size, 0);
  const overStored = Math.ceil(stored / GB) - OBJECT_STORAGE_INCLUDED_GB;
  if (overStored > 0)
    items.push(
      misc('Object Storage - storage over 250 GB', overStored, OBJECT_STORAGE_OVERAGE_PER_GB),
    );
  const t = await db.db
    .selectFrom('obj_transfer')
    .select('bytes_out')
    .where('account_id', '=', accountId)
    .where('month', '=', periodOf(startMs))
    .executeTakeFirst();
  const included = OBJECT_STORAGE_PRICES[0]?.transfer ?? 0;
  const overSent = Math.ceil(Number(t?.bytes_out ?? 0) / GB) - included;
  const perGb = NETWORK_TRANSFER_PRICES.find((p) => p.id === 'network_transfer')?.price.hourly ?? 0;
  if (opts.transfer && overSent > 0)
    items.push(misc('Object Storage - transfer over 1 TB', overSent, perGb));
  return items;
}

/**
 * The estimate of what an account owes for [startMs, endMs) before tax, in cents: transfer
 * charges excluded, as the spec says of `balance_uninvoiced`.
 */
export async function accruedCents(
  db: Database,
  accountId: number,
  startMs: number,
  endMs: number,
): Promise<number> {
  const items = await billItems(db, accountId, startMs, endMs, { transfer: false });
  return items.reduce((n, i) => n + i.amount_cents, 0);
}

/**
 * Writes the invoice of `period` (the month starting at `startMs`, up to `endMs`) for an
 * account, with its items, and adds its total to the balance. Tax: none (docs/fidelity.md).
 * Undefined when the account had nothing billable or the month is already invoiced: the
 * unique (account, period) key makes a second writer (another worker) a no-op.
 */
export async function writeInvoice(
  db: Database,
  accountId: number,
  startMs: number,
  endMs: number,
  nowMs: number,
): Promise<{ id: number; totalCents: number } | undefined> {
  const items = await billItems(db, accountId, startMs, endMs);
  if (items.length === 0) return undefined;
  const subtotal = items.reduce((n, i) => n + i.amount_cents, 0);
  const tax = 0;
  const row = await db.db
    .insertInto('invoices')
    .values({
      account_id: accountId,
      period: periodOf(startMs),
      date: isoSeconds(nowMs),
      label: 'Invoice',
      subtotal_cents: subtotal,
      tax_cents: tax,
      total_cents: subtotal + tax,
      tax_summary: '[]',
    })
    .onConflict((oc) => oc.columns(['account_id', 'period']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!row) return undefined;
  await db.db
    .insertInto('invoice_items')
    .values(items.map((i) => ({ ...i, invoice_id: row.id, tax_cents: 0 })))
    .execute();
  await addToBalance(db, accountId, subtotal + tax);
  return { id: row.id, totalCents: subtotal + tax };
}

export async function addToBalance(db: Database, accountId: number, cents: number) {
  await db.db
    .updateTable('accounts')
    .set((eb) => ({ balance_cents: eb('balance_cents', '+', cents) }))
    .where('id', '=', accountId)
    .execute();
}
