import { type SqlBool, sql } from 'kysely';
import type { Database } from '../db/database.js';

/**
 * The job that, queued, waits for a client to read the account's event feed (or its entity)
 * before it runs: the start of an instance's long operation (src/modules/compute/ops.jobs.ts). It
 * is queued with a deadline, never with a duration of work, so waking it early skips no work.
 */
export const FEED_READ_JOB = 'compute.op_start';

/**
 * Queued jobs of FEED_READ_JOB, written as literals: SQLite answers from the partial index
 * `jobs_feed_read_idx` (migration 0056, whose condition names the same job) only when the
 * query's text implies its condition.
 */
const WAITING = sql<SqlBool>`name = ${sql.lit(FEED_READ_JOB)} and status = 'queued'`;

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
