import { Type } from '@sinclair/typebox';
import { defineJob, type JobContext } from '../../jobs/job.js';
import { chargeAccount } from './charge.js';
import { writeInvoice } from './invoices.js';
import { monthBounds } from './months.js';
import {
  INVOICING_ATTEMPTS,
  INVOICING_JOB,
  INVOICING_VERSION,
  type InvoicingPayload,
} from './schedule.js';

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

/**
 * The monthly invoicing, on the job clock: due at 00:00 UTC on the 1st after the month it
 * invoices. When it runs it invoices every month that has ended since (so months missed while
 * no process ran are caught up, each once), then re-queues itself for the next 1st.
 */
export const invoicingJob = defineJob<InvoicingPayload>({
  name: INVOICING_JOB,
  version: INVOICING_VERSION,
  payload: Type.Object({ monthStartMs: Type.Number() }),
  maxAttempts: INVOICING_ATTEMPTS,
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
