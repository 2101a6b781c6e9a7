import { sql } from 'kysely';
import type { MigrationContext } from './helpers.js';

/**
 * The jobs that wait for a read of their account's events (src/jobs/feed-read.ts), found per
 * account from an index of those jobs alone: every read of the events looks for them, and the
 * queue may hold many other jobs. Partial: its condition is written as literals in the query.
 */
export async function up({ db }: MigrationContext): Promise<void> {
  await sql`create index jobs_feed_read_idx on jobs (account_id, run_at) where name = 'compute.op_start' and status = 'queued'`.execute(
    db,
  );
}

export async function down({ db }: MigrationContext): Promise<void> {
  await db.schema.dropIndex('jobs_feed_read_idx').ifExists().execute();
}
