import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { defineJob, type JobContext } from '../../jobs/job.js';
import { isoSeconds } from '../../lib/time.js';
import type { EventWriter } from '../events/events.writer.js';
import { entityRefs } from '../events/events.types.js';
import { bucketUsage } from '../object-storage/objects.repository.js';
import { accrue, factsOverlapping, microsToCents, monthBounds, periodOf } from './facts.js';
import {
  NETWORK_TRANSFER_PRICES,
  OBJECT_STORAGE_INCLUDED_GB,
  OBJECT_STORAGE_OVERAGE_PER_GB,
  OBJECT_STORAGE_PRICES,
  toMicros,
} from './prices.js';
import { type ChargeOutcome, cardFor, charge } from './processor.js';

const GB = 1024 ** 3;

interface ItemDraft {
  label: string;
  from: string;
  to: string;
  quantity: number;
  unit_price: string;
  amount_cents: number;
  region: string | null;
  type: 'hourly' | 'misc';
}

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

/** Invoices one month for every account billed in it, and charges each invoice. */
export async function invoiceMonth(
  ctx: Pick<JobContext, 'db' | 'events' | 'clock' | 'log'>,
  startMs: number,
) {
  const { end } = monthBounds(startMs);
  const accounts = await ctx.db.db
    .selectFrom('billing_facts')
    .select('account_id')
    .distinct()
    .where('from_ms', '<', end)
    .where((eb) => eb.or([eb('to_ms', 'is', null), eb('to_ms', '>', startMs)]))
    .orderBy('account_id')
    .execute();
  const nowMs = ctx.clock.nowMs();
  for (const { account_id } of accounts) {
    const inv = await writeInvoice(ctx.db, account_id, startMs, end, nowMs);
    if (!inv || inv.totalCents <= 0) continue;
    const res = await chargeAccount(ctx.db, ctx.events, {
      accountId: account_id,
      cents: inv.totalCents,
      nowMs,
      invoiceId: inv.id,
      username: null,
    });
    if (!res.ok)
      ctx.log.info(
        { accountId: account_id, invoiceId: inv.id },
        `invoice not charged: ${res.reason}`,
      );
  }
}

export interface InvoicingPayload {
  /** Epoch ms of the first month not invoiced yet. */
  monthStartMs: number;
}

export const INVOICING_JOB = 'billing.invoicing';

/**
 * The monthly invoicing, on the job clock: due at 00:00 UTC on the 1st after the month it
 * invoices. When it runs it invoices every month that has ended since (so months missed while
 * no process ran are caught up, each once), then re-queues itself for the next 1st.
 */
export const invoicingJob = defineJob<InvoicingPayload>({
  name: INVOICING_JOB,
  version: 1,
  payload: Type.Object({ monthStartMs: Type.Number() }),
  maxAttempts: 10,
  recurring: true,
  async handle(ctx, p) {
    // Another schedule (two processes that queued one at once): the oldest one goes on.
    const older = await ctx.db.db
      .selectFrom('jobs')
      .select('id')
      .where('name', '=', INVOICING_JOB)
      .where('id', '<', ctx.jobId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (older) return undefined;
    const now = ctx.clock.nowMs();
    let month = p.monthStartMs;
    while (monthBounds(month).end <= now) {
      await invoiceMonth(ctx, month);
      month = monthBounds(month).end;
    }
    return { next: { monthStartMs: month }, delayMs: monthBounds(month).end - now };
  },
});

/**
 * Queues the invoicing schedule unless one is queued: called whenever a billable period opens,
 * so a database that never billed anything has no schedule (and a reset, which clears the jobs
 * and the periods, has none until billing starts again). Written directly (the period's
 * transaction has no queue at hand); it is due on the next 1st, so no runner needs waking.
 */
export async function ensureInvoicing(db: Database, atMs: number) {
  const existing = await db.db
    .selectFrom('jobs')
    .select('id')
    .where('name', '=', INVOICING_JOB)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  if (existing) return;
  const { start, end } = monthBounds(atMs);
  const payload: InvoicingPayload = { monthStartMs: start };
  await db.db
    .insertInto('jobs')
    .values({
      name: INVOICING_JOB,
      payload: JSON.stringify({ $version: invoicingJob.version, ...payload }),
      status: 'queued',
      run_at: end,
      attempts: 0,
      max_attempts: invoicingJob.maxAttempts,
      locked_by: null,
      locked_until: null,
      last_error: null,
      account_id: null,
      entity_type: null,
      entity_id: null,
      created: isoSeconds(atMs),
      updated: isoSeconds(atMs),
    })
    .execute();
}
