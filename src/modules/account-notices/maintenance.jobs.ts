import { Type } from '@sinclair/typebox';
import type { JobContext, PerformResult, WorkContext } from '../../jobs/job.js';
import { defineJob } from '../../jobs/job.js';
import { isoSeconds } from '../../lib/time.js';
import { closeRun, openRun } from '../compute/compute.jobs.js';
import { instanceById } from '../compute/compute.repository.js';
import { DEFAULT_MAINTENANCE_POLICY } from '../compute/compute.schemas.js';
import type { InstanceStatus } from '../compute/compute.table.js';
import { machineSpec } from '../compute/machines.seam.js';
import { holdDelay } from '../compute/status-hold.js';
import { entityRefs } from '../events/events.types.js';
import { finishMigration } from '../placement/placement.compliance.js';
import { effectOf, eventActionOf, policyType } from './maintenance.policy.js';
import { findMaintenance, type MaintenanceRow } from './maintenance.repository.js';

export interface WindowPayload {
  maintenanceId: number;
}

/**
 * How long the start waits when the instance is busy (an operation of its owner under way): the
 * maintenance starts once it is idle, the planned window keeping its end if it can.
 */
export const BUSY_RETRY_MS = 60_000;

/** The owner's own work on an instance keeps a maintenance from starting. */
const IDLE = new Set<InstanceStatus>(['running', 'offline']);

async function setInstance(
  ctx: JobContext,
  id: number,
  set: { status: InstanceStatus; host_uuid?: string },
): Promise<void> {
  await ctx.db.db
    .updateTable('instances')
    .set({ ...set, seen_status: null, updated: isoSeconds(ctx.clock.nowMs()) })
    .where('id', '=', id)
    .execute();
}

async function setMaintenance(
  ctx: JobContext,
  id: number,
  set: Partial<Omit<MaintenanceRow, 'id'>>,
): Promise<void> {
  await ctx.db.db.updateTable('maintenances').set(set).where('id', '=', id).execute();
}

/** The maintenance ends: its event and the record say so. */
async function complete(ctx: JobContext, row: MaintenanceRow, failed?: string): Promise<void> {
  if (row.event_id !== null) {
    await ctx.events.update(
      ctx.db,
      row.event_id,
      failed ? { status: 'failed', message: failed } : { status: 'finished' },
    );
  }
  await setMaintenance(ctx, row.id, {
    status: 'completed',
    complete_time: isoSeconds(ctx.clock.nowMs()),
  });
}

/** A maintenance whose instance went away before it started: canceled, and its event too. */
async function drop(ctx: JobContext, row: MaintenanceRow): Promise<void> {
  if (row.event_id !== null) await ctx.events.update(ctx.db, row.event_id, { status: 'canceled' });
  await setMaintenance(ctx, row.id, { status: 'canceled' });
}

/**
 * A maintenance window on the job clock. Queued with the maintenance (no entity: the instance
 * stays usable through the notice period), it waits for `when`, then starts the work the
 * instance's maintenance policy asks for, with the policy of that moment: `migrate` moves the
 * instance live (`migrating`, still running), `power_off_on` shuts a running instance down. The
 * rest is `maintenanceWorkJob`'s, which holds the instance (400 `Compute busy.`) until the end.
 * Each step re-reads the locked row, so a second runner changes nothing.
 */
export const maintenanceWindowJob = defineJob<WindowPayload>({
  name: 'notices.maintenance_window',
  version: 1,
  payload: Type.Object({ maintenanceId: Type.Integer() }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const row = await findMaintenance(ctx.db, p.maintenanceId, true);
    if (!row || row.status === 'canceled' || row.status === 'completed') return undefined;
    const now = ctx.clock.nowMs();
    if (row.status === 'started') {
      // A window started before maintenance followed the policies (no work job): it just ends.
      if (now < row.until_ms) return { next: p, delayMs: row.until_ms - now };
      await complete(ctx, row);
      return undefined;
    }
    if (now < row.when_ms) return { next: p, delayMs: row.when_ms - now };
    const inst = await instanceById(ctx.db, row.entity_id);
    if (!inst || inst.status === 'deleting') {
      await drop(ctx, row);
      return undefined;
    }
    if (!IDLE.has(inst.status) || (await ctx.queue.hasActive(ctx.db, 'compute', inst.id))) {
      return { next: p, delayMs: BUSY_RETRY_MS };
    }
    const policy = inst.maintenance_policy ?? DEFAULT_MAINTENANCE_POLICY;
    const type = row.by_policy ? policyType(policy) : row.type;
    const effect = effectOf(type);
    let eventId = row.event_id;
    if (eventId === null) {
      eventId = await ctx.events.record(ctx.db, {
        accountId: inst.account_id,
        action: eventActionOf(effect),
        entity: entityRefs.compute(inst.id, inst.label),
        status: 'started',
        username: null,
        percentComplete: 0,
      });
    } else {
      await ctx.events.update(ctx.db, eventId, { status: 'started', percentComplete: 0 });
    }
    const shutsDown = effect === 'power_off_on' && inst.status === 'running';
    await setMaintenance(ctx, row.id, {
      status: 'started',
      type,
      policy,
      event_id: eventId,
      prior_status: inst.status,
      start_time: isoSeconds(now),
    });
    if (effect === 'migrate') await setInstance(ctx, inst.id, { status: 'migrating' });
    if (shutsDown) {
      await closeRun(ctx.db, inst.id, now);
      await setInstance(ctx, inst.id, { status: 'shutting_down' });
    }
    await ctx.queue.enqueue(
      ctx.db,
      maintenanceWorkJob,
      { maintenanceId: row.id, step: shutsDown ? 'off' : 'end' },
      {
        accountId: inst.account_id,
        entity: { type: 'compute', id: inst.id },
        delayMs: shutsDown ? ctx.timing.stepMs('shutdown', 1) : Math.max(0, row.until_ms - now),
      },
    );
    return undefined;
  },
});

export interface WorkPayload {
  maintenanceId: number;
  /** `off`: a shutdown ends; `end`: the window ends; `on`: the boot after it ends. */
  step: 'off' | 'end' | 'on';
  holdFrom?: number;
}

/**
 * With the compute driver of real machines, the machine goes off when the instance shows
 * `offline` and starts again before it shows `running` (the config it last booted).
 */
async function performWork(ctx: WorkContext, p: WorkPayload): Promise<PerformResult<WorkPayload>> {
  if (!ctx.machines.real || p.step === 'end') return { payload: p };
  const row = await findMaintenance(ctx.db, p.maintenanceId);
  const inst = row ? await instanceById(ctx.db, row.entity_id) : undefined;
  if (row?.status !== 'started' || !inst || inst.status === 'deleting') {
    return { payload: p };
  }
  if (p.step === 'off') await ctx.machines.stop(inst.id);
  else
    await ctx.machines.start(await machineSpec(ctx.db, inst.id, inst.last_booted_config_id, null));
  return { payload: p };
}

/**
 * The work of a started maintenance, on the instance (its entity: the owner's actions answer
 * `Compute busy.` meanwhile). `migrate`: at the end of the window the instance is on another
 * host (its placement group's model kept) and shows its status of before. `power_off_on`: the
 * instance is `offline` for the window, then boots (`booting`, `running`) if it was running.
 * The event (`compute_migrate` or `compute_poweroff_on`) finishes with it.
 */
export const maintenanceWorkJob = defineJob<WorkPayload>({
  name: 'notices.maintenance_work',
  version: 1,
  payload: Type.Object({
    maintenanceId: Type.Integer(),
    step: Type.String({ enum: ['off', 'end', 'on'] }),
  }),
  maxAttempts: 5,
  perform: performWork,
  async handle(ctx, p) {
    const row = await findMaintenance(ctx.db, p.maintenanceId, true);
    if (row?.status !== 'started') return undefined;
    const inst = await instanceById(ctx.db, row.entity_id);
    if (!inst || inst.status === 'deleting') {
      await complete(ctx, row, 'The instance was deleted.');
      return undefined;
    }
    const now = ctx.clock.nowMs();
    const effect = effectOf(row.type);
    // Out of a transitional status only once a client has seen it (compute's rule).
    const hold = await holdDelay(ctx, inst.id, p);
    if (hold && (p.step !== 'end' || now >= row.until_ms)) {
      return { next: { ...p, holdFrom: hold.holdFrom }, delayMs: hold.delayMs };
    }
    const { holdFrom: _, ...next } = p;
    switch (p.step) {
      case 'off':
        await setInstance(ctx, inst.id, { status: 'offline' });
        await ctx.events.update(ctx.db, row.event_id ?? 0, { percentComplete: 50 });
        return { next: { ...next, step: 'end' }, delayMs: Math.max(0, row.until_ms - now) };
      case 'end': {
        if (now < row.until_ms) return { next, delayMs: row.until_ms - now };
        if (effect === 'migrate') {
          const host = await finishMigration(ctx, { id: inst.id, pending_migration: null }, false);
          const back = row.prior_status === 'offline' ? 'offline' : 'running';
          await setInstance(ctx, inst.id, { status: back, host_uuid: host });
          await complete(ctx, row);
          return undefined;
        }
        if (row.prior_status !== 'running') {
          await complete(ctx, row);
          return undefined;
        }
        await setInstance(ctx, inst.id, { status: 'booting' });
        return { next: { ...next, step: 'on' }, delayMs: ctx.timing.stepMs('boot', 1) };
      }
      case 'on':
        await setInstance(ctx, inst.id, { status: 'running' });
        await openRun(ctx.db, inst.id, inst.account_id, now);
        await complete(ctx, row);
        return undefined;
    }
  },
  async onFailure(ctx, p, error) {
    const row = await findMaintenance(ctx.db, p.maintenanceId, true);
    if (row?.status !== 'started') return;
    await complete(ctx, row, error.message);
    const inst = await instanceById(ctx.db, row.entity_id);
    if (inst && inst.status !== 'deleting') await setInstance(ctx, inst.id, { status: 'offline' });
  },
});

export const noticeJobs = [maintenanceWindowJob, maintenanceWorkJob];
