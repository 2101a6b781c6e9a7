import { type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { statement } from '../../db/statement.js';
import { isoSeconds } from '../../lib/time.js';
import { monthBounds } from './months.js';

/** The monthly invoicing job (src/modules/billing/invoicing.ts). */
export const INVOICING_JOB = 'billing.invoicing';
export const INVOICING_VERSION = 1;
export const INVOICING_ATTEMPTS = 10;

export interface InvoicingPayload {
  /** Epoch ms of the first month not invoiced yet. */
  monthStartMs: number;
}

/**
 * The standing schedule, if any. Literals, not parameters: so SQLite answers from the partial
 * unique index of the standing schedule (it can only use a partial index whose condition the
 * query's text implies) instead of reading every queued job (a sixth of a volume create's time
 * under load). Built once per dialect: every billable create runs it.
 */
const standingSchedule = statement('billing.standingSchedule', ({ db }) =>
  db
    .selectFrom('jobs')
    .select('id')
    .where(sql<SqlBool>`name = ${sql.lit(INVOICING_JOB)} and status in ('queued', 'running')`),
);

/**
 * Queues the invoicing schedule unless one is queued (at most one, by a partial unique index): called whenever a billable period opens,
 * so a database that never billed anything has no schedule (and a reset, which clears the jobs
 * and the periods, has none until billing starts again). Written directly (the period's
 * transaction has no queue at hand); it is due on the next 1st, so no runner needs waking.
 */
export async function ensureInvoicing(db: Database, atMs: number) {
  const existing = await standingSchedule.first(db);
  if (existing) return;
  const { start, end } = monthBounds(atMs);
  const payload: InvoicingPayload = { monthStartMs: start };
  await db.db
    .insertInto('jobs')
    .values({
      name: INVOICING_JOB,
      payload: JSON.stringify({ $version: INVOICING_VERSION, ...payload }),
      status: 'queued',
      run_at: end,
      attempts: 0,
      max_attempts: INVOICING_ATTEMPTS,
      locked_by: null,
      locked_until: null,
      last_error: null,
      account_id: null,
      entity_type: null,
      entity_id: null,
      created: isoSeconds(atMs),
      updated: isoSeconds(atMs),
    })
    // A transaction that queued it at the same time wins (unique index on the standing schedule).
    .onConflict((oc) => oc.doNothing())
    .execute();
}
