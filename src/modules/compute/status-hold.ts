import type { Database } from '../../db/database.js';
import type { JobContext } from '../../jobs/job.js';
import type { InstanceStatus } from './compute.table.js';

/**
 * Transitional statuses a client polls for after starting the work (`rebooting` after a reboot,
 * `resizing` after a resize…). Under every timing profile, `instant` included, such a status
 * holds until a client has read the instance (a GET of it or of the list), or at most
 * `HOLD_MS` of the job clock: a poller sees it at least once, and work nobody watches is late by
 * HOLD_MS at most. The status a client read is kept in `instances.seen_status`.
 */
export const HELD_STATUSES: ReadonlySet<InstanceStatus> = new Set([
  'rebooting',
  'shutting_down',
  'rebuilding',
  'resizing',
  'migrating',
  'restoring',
]);

/** The longest a transitional status waits for a reader (the SDKs poll every 3 to 10 s). */
export const HOLD_MS = 30_000;

export interface Holdable {
  /** Job clock ms when the current hold began (set on the first deferral). */
  holdFrom?: number;
}

/** `seen_status` of a status a job is waiting to have read. */
const waiting = (status: string) => `?${status}`;

/**
 * `seen_status` of an instance whose operation waits for a read before it starts
 * (ops.start.ts): a read of the instance marks the status seen and wakes the start job.
 */
export const awaitingRead = (status: InstanceStatus): string => waiting(status);

/**
 * Called by a job step about to move an instance out of its current status: the delay to wait
 * (and the `holdFrom` to carry) while the status is held and unread, or undefined to go on.
 * A waiting job marks the row (`?<status>` in `seen_status`) so that a reader wakes it; the
 * row is written first, so on PostgreSQL a concurrent reader waits for this step's commit.
 */
export async function holdDelay(
  ctx: JobContext,
  instanceId: number,
  p: Holdable,
  alsoHeld: InstanceStatus | undefined = undefined,
): Promise<{ delayMs: number; holdFrom: number } | undefined> {
  const row = await ctx.db.db
    .updateTable('instances')
    .set((eb) => ({ seen_status: eb.ref('seen_status') }))
    .where('id', '=', instanceId)
    .returning(['status', 'seen_status'])
    .executeTakeFirst();
  if (!row) return undefined;
  const status = row.status as InstanceStatus;
  if (!HELD_STATUSES.has(status) && status !== alsoHeld) return undefined;
  if (row.seen_status === status) return undefined;
  const now = ctx.clock.nowMs();
  const from = p.holdFrom ?? now;
  if (now >= from + HOLD_MS) return undefined;
  await ctx.db.db
    .updateTable('instances')
    .set({ seen_status: waiting(status) })
    .where('id', '=', instanceId)
    .execute();
  return { delayMs: from + HOLD_MS - now, holdFrom: from };
}

/** The operation jobs of an instance that wait for a read (scheduled maintenance's too). */
const WAITING_JOBS = [
  'compute.lifecycle',
  'compute.op',
  'compute.op_start',
  'notices.maintenance_work',
];

/**
 * A client read these instances: their current status counts as seen, and a job waiting for
 * that read is due at once. Writes only rows whose status changed since the last read.
 */
export async function markSeen(
  db: Database,
  rows: readonly { id: number; status: string; seen_status?: string | null }[],
  nowMs: number,
): Promise<void> {
  for (const r of rows) {
    if (r.seen_status === r.status) continue;
    const status = r.status as InstanceStatus;
    const woken = await db.db
      .updateTable('instances')
      .set({ seen_status: status })
      .where('id', '=', r.id)
      .where('status', '=', status)
      .where('seen_status', '=', waiting(status))
      .executeTakeFirst();
    if (Number(woken.numUpdatedRows) > 0) {
      await db.db
        .updateTable('jobs')
        .set({ run_at: nowMs })
        .where('entity_type', '=', 'compute')
        .where('entity_id', '=', r.id)
        .where('status', '=', 'queued')
        .where('name', 'in', WAITING_JOBS)
        .where('run_at', '>', nowMs)
        .execute();
      continue;
    }
    await db.db
      .updateTable('instances')
      .set({ seen_status: status })
      .where('id', '=', r.id)
      .where('status', '=', status)
      .execute();
  }
}
