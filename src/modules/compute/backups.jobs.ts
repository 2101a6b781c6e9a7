import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { JobContext } from '../../jobs/job.js';
import { defineJob } from '../../jobs/job.js';
import type { JobQueue } from '../../jobs/queue.js';
import { isoSeconds } from '../../lib/time.js';
import { captureContents } from './backups.repository.js';
import { STEPS } from './compute.jobs.js';
import { instanceById } from './compute.repository.js';
import { SCHEDULE_DAYS, SCHEDULE_WINDOWS } from './compute.schemas.js';
import { performBackup } from './machines.perform.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The schedule job's entity: one per instance, not the instance itself (never busy). */
export const SCHEDULE_ENTITY = 'backup_schedule';

export interface BackupPayload {
  backupId: number;
  instanceId: number;
  accountId: number;
  /** `compute_snapshot` for a snapshot; automatic backups have no event. */
  eventId: number | null;
  step: number;
}

/**
 * Keeps the automatic slots of the real service when a backup succeeds: a backup taken on the
 * schedule's day becomes the weekly one (the previous weekly becomes the biweekly one, the old
 * biweekly and the daily are dropped); any other day's replaces the daily one. A new snapshot
 * replaces the previous snapshot.
 */
async function retain(db: Database, backupId: number, instanceId: number, now: number) {
  const row = await db.db
    .selectFrom('backups')
    .select(['type'])
    .where('id', '=', backupId)
    .executeTakeFirstOrThrow();
  const others = db.db
    .deleteFrom('backups')
    .where('instance_id', '=', instanceId)
    .where('id', '<>', backupId);
  if (row.type === 'snapshot') {
    await others.where('type', '=', 'snapshot').execute();
    return;
  }
  const inst = await instanceById(db, instanceId);
  const weekday = SCHEDULE_DAYS[1 + new Date(now).getUTCDay()];
  let slot = 'daily';
  if (inst?.backups_day === weekday) {
    slot = 'weekly';
    await others.where('slot', 'in', ['biweekly', 'daily']).execute();
    await db.db
      .updateTable('backups')
      .set({ slot: 'biweekly' })
      .where('instance_id', '=', instanceId)
      .where('slot', '=', 'weekly')
      .execute();
  } else {
    await others.where('slot', '=', 'daily').execute();
  }
  await db.db.updateTable('backups').set({ slot }).where('id', '=', backupId).execute();
}

/** Taking one backup: `pending` → `running` → `successful` (available). */
export const backupJob = defineJob<BackupPayload>({
  name: 'compute.backup',
  version: 1,
  payload: Type.Object({ backupId: Type.Integer(), instanceId: Type.Integer() }),
  maxAttempts: 5,
  perform: performBackup,
  async handle(ctx, p) {
    const row = await ctx.db.db
      .selectFrom('backups')
      .select('id')
      .where('id', '=', p.backupId)
      .executeTakeFirst();
    const inst = await instanceById(ctx.db, p.instanceId);
    const nowMs = ctx.clock.nowMs();
    const now = isoSeconds(nowMs);
    if (!row || !inst || inst.status === 'deleting') {
      if (p.eventId !== null)
        await ctx.events.update(ctx.db, p.eventId, {
          status: 'failed',
          message: 'The backup was cancelled.',
        });
      return undefined;
    }
    const delayMs = ctx.timing.stepMs('backup', STEPS);
    if (p.step === 0) {
      await ctx.db.db
        .updateTable('backups')
        .set({ status: 'running', updated: now })
        .where('id', '=', p.backupId)
        .execute();
      if (p.eventId !== null)
        await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs };
    }
    if (p.step < STEPS) {
      if (p.eventId !== null)
        await ctx.events.update(ctx.db, p.eventId, {
          percentComplete: Math.round((p.step / STEPS) * 100),
        });
      return { next: { ...p, step: p.step + 1 }, delayMs };
    }
    await ctx.db.db
      .updateTable('backups')
      .set({ status: 'successful', available: 1, finished: now, updated: now })
      .where('id', '=', p.backupId)
      .execute();
    await ctx.db.db
      .updateTable('instances')
      .set({ backups_last_successful: now })
      .where('id', '=', p.instanceId)
      .execute();
    await retain(ctx.db, p.backupId, p.instanceId, nowMs);
    if (p.eventId !== null) await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    if (p.eventId !== null)
      await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
    await ctx.db.db
      .updateTable('backups')
      .set({ status: 'failed', updated: isoSeconds(ctx.clock.nowMs()) })
      .where('id', '=', p.backupId)
      .execute();
  },
});

/** Starts a backup of the instance as it is now; returns its id. */
export async function startBackup(
  db: Database,
  queue: JobQueue,
  inst: { id: number; account_id: number; region: string; image: string | null },
  kind: { type: 'snapshot'; label: string; eventId: number } | { type: 'auto' },
  nowIso: string,
): Promise<number> {
  const contents = await captureContents(db, inst.id, inst.image);
  const { id } = await db.db
    .insertInto('backups')
    .values({
      account_id: inst.account_id,
      instance_id: inst.id,
      region: inst.region,
      type: kind.type,
      slot: null,
      status: 'pending',
      available: 0,
      label: kind.type === 'snapshot' ? kind.label : null,
      contents: JSON.stringify(contents),
      created: nowIso,
      updated: nowIso,
      finished: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await queue.enqueue(
    db,
    backupJob,
    {
      backupId: id,
      instanceId: inst.id,
      accountId: inst.account_id,
      eventId: kind.type === 'snapshot' ? kind.eventId : null,
      step: 0,
    },
    { accountId: inst.account_id, entity: { type: 'backup', id } },
  );
  return id;
}

export interface SchedulePayload {
  instanceId: number;
  accountId: number;
}

/** The schedule the service picks for `Scheduling` (spread over instances). */
function chosen(id: number): { day: string; window: string } {
  return {
    day: SCHEDULE_DAYS[1 + (id % 7)] as string,
    window: SCHEDULE_WINDOWS[1 + (id % 12)] as string,
  };
}

/** Start of today's (UTC) backup window. */
export function windowStartMs(nowMs: number, window: string): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS + Number(window.slice(1)) * HOUR_MS;
}

/**
 * Automatic backups, on the job clock: a recurring job per instance with backups enabled. It
 * picks the schedule if still `Scheduling`, takes the daily backup when it runs inside the
 * two-hour window, and re-queues itself for the next window. It ends when backups are cancelled
 * or the instance is deleted.
 */
export const backupScheduleJob = defineJob<SchedulePayload>({
  name: 'compute.backups.schedule',
  version: 1,
  payload: Type.Object({ instanceId: Type.Integer() }),
  maxAttempts: 5,
  recurring: true,
  async handle(ctx: JobContext, p) {
    const inst = await instanceById(ctx.db, p.instanceId);
    if (!inst || inst.backups_enabled === 0 || inst.status === 'deleting') return undefined;
    let day = inst.backups_day;
    let window = inst.backups_window;
    if (!day || day === 'Scheduling' || !window || window === 'Scheduling') {
      const c = chosen(inst.id);
      day = !day || day === 'Scheduling' ? c.day : day;
      window = !window || window === 'Scheduling' ? c.window : window;
      await ctx.db.db
        .updateTable('instances')
        .set({ backups_day: day, backups_window: window })
        .where('id', '=', inst.id)
        .execute();
    }
    const now = ctx.clock.nowMs();
    const start = windowStartMs(now, window);
    let next: number;
    if (now >= start && now < start + 2 * HOUR_MS) {
      const busy = await ctx.db.db
        .selectFrom('backups')
        .select('id')
        .where('instance_id', '=', inst.id)
        .where('type', '=', 'auto')
        .where('status', 'in', ['pending', 'running'])
        .executeTakeFirst();
      if (!busy) await startBackup(ctx.db, ctx.queue, inst, { type: 'auto' }, isoSeconds(now));
      next = start + DAY_MS;
    } else {
      next = now < start ? start : start + DAY_MS;
    }
    return { next: p, delayMs: next - now };
  },
});

/** Queues the automatic backups of an instance (after enabling backups). */
export async function scheduleAutomaticBackups(
  db: Database,
  queue: JobQueue,
  instanceId: number,
  accountId: number,
): Promise<void> {
  if (await queue.hasActive(db, SCHEDULE_ENTITY, instanceId)) return;
  // The schedule stays `Scheduling` until the job picks it, within the hour.
  await queue.enqueue(
    db,
    backupScheduleJob,
    { instanceId, accountId },
    { accountId, entity: { type: SCHEDULE_ENTITY, id: instanceId }, delayMs: HOUR_MS },
  );
}

/** A changed schedule takes effect at once: the queued schedule job runs now and re-queues. */
export async function rescheduleAutomaticBackups(
  db: Database,
  nowMs: number,
  instanceId: number,
): Promise<void> {
  await db.db
    .updateTable('jobs')
    .set({ run_at: nowMs })
    .where('name', '=', backupScheduleJob.name)
    .where('entity_type', '=', SCHEDULE_ENTITY)
    .where('entity_id', '=', instanceId)
    .where('status', '=', 'queued')
    .execute();
}

/** Cancelling backups removes the queued schedule. */
export async function unscheduleAutomaticBackups(db: Database, instanceId: number): Promise<void> {
  await db.db
    .deleteFrom('jobs')
    .where('name', '=', backupScheduleJob.name)
    .where('entity_type', '=', SCHEDULE_ENTITY)
    .where('entity_id', '=', instanceId)
    .where('status', '=', 'queued')
    .execute();
}

export const backupJobs = [backupJob, backupScheduleJob];
