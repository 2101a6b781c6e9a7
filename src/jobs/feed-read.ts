import { type SqlBool, sql } from 'kysely';
import type { Database } from '../db/database.js';

/**
 * Jobs that, queued, wait for a client to read the account's event feed (or their entity) before
 * they run: the start of an instance's long operation (src/modules/compute/ops.jobs.ts). They
 * are queued with a deadline, never with a duration of work, so waking them early skips no work.
 */
export const FEED_READ_JOBS = ['compute.op_start'] as const;

/**
 * Queued jobs of FEED_READ_JOBS, written as literals with `=`: SQLite answers from the partial
 * index `jobs_feed_read_idx` (migration 0056, whose condition names the same job) only when the
 * query's text implies its condition, which `in (…)` does not.
 */
const WAITING = sql<SqlBool>`name = ${sql.lit(FEED_READ_JOBS[0] ?? '')} and status = 'queued'`;

/**
 * A client read the account's events: its jobs waiting for that are due now. Called after the
 * page was read, so what the reader saw was read before the work started. One read when nothing
 * waits (the usual case); the update only when something does.
 */
export async function wakeFeedReaders(
  db: Database,
  accountId: number,
  nowMs: number,
): Promise<boolean> {
  const waiting = await db.db
    .selectFrom('jobs')
    .select('id')
    .where(WAITING)
    .where('account_id', '=', accountId)
    .where('run_at', '>', nowMs)
    .limit(1)
    .executeTakeFirst();
  if (!waiting) return false;
  await db.db
    .updateTable('jobs')
    .set({ run_at: nowMs })
    .where(WAITING)
    .where('account_id', '=', accountId)
    .where('run_at', '>', nowMs)
    .execute();
  return true;
}
