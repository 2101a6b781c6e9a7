import { FEED_READ_JOB } from '../../jobs/feed-read.js';
import { Type } from '@sinclair/typebox';
import type { JobContext } from '../../jobs/job.js';
import { defineJob } from '../../jobs/job.js';
import type { WorkKind } from '../../jobs/timing.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import { lifecycleJob, STEPS } from './compute.jobs.js';
import { configRef, instanceById } from './compute.repository.js';
import { performOp } from './machines.perform.js';
import type { InstanceStatus } from './compute.table.js';
import { finishClone } from './clone.effects.js';
import { type Holdable, holdDelay } from './status-hold.js';
import {
  abandonMigration,
  applyTypeChange,
  finishDatacenterMove,
  readPendingMigration,
} from './ops.effects.js';
import { finishMigration } from '../placement/placement.compliance.js';

/** The long operations of an instance beyond power: each a sequence of statuses and events. */
export type OpKind =
  | 'resize'
  | 'mutate'
  | 'migrate'
  | 'migrate_datacenter'
  | 'rebuild'
  | 'clone'
  | 'restore';

export interface OpPayload extends Holdable {
  op: OpKind;
  /** The instance worked on (clone and restore: the target). */
  instanceId: number;
  accountId: number;
  eventId: number;
  step: number;
  username: string | null;
  /** After the work: boot with a `compute_boot` event (the operation shut it down, or rebuild). */
  bootAfter: boolean;
  /** The config to boot (rebuild: the new one); null: the last booted or only config. */
  configId: number | null;
  /** After the work without a boot: the status to end in (warm operations stay running). */
  endStatus: InstanceStatus;
  /** Resize, mutate, migrate with upgrade: the new type. */
  type?: string;
  allowAutoDiskResize?: boolean;
  /** Clone: the source instance. */
  sourceId?: number;
}

/**
 * What the start job of an operation carries: the operation's payload without its event, which
 * the start records, and the event's action and entities.
 */
export interface OpStartPayload extends Omit<OpPayload, 'eventId'> {
  action: string;
  /** The event's entity when it is not the instance worked on (clone: the source). */
  eventEntity: { id: number; label: string } | null;
  eventSecondary: { id: number; label: string } | null;
}

const KIND: Record<OpKind, WorkKind> = {
  resize: 'resize',
  mutate: 'resize',
  migrate: 'migrate',
  migrate_datacenter: 'migrate',
  rebuild: 'rebuild',
  clone: 'clone',
  restore: 'restore',
};

/**
 * The status an instance shows while each operation runs: a warm resize or migration (the
 * instance keeps running) `migrating`; a cold resize `resizing`; a cold migration `migrating`,
 * then `offline` while the instance is moved (its second half).
 */
export function opStatus(op: OpKind, warm: boolean): InstanceStatus {
  switch (op) {
    case 'resize':
    case 'mutate':
      return warm ? 'migrating' : 'resizing';
    case 'migrate':
    case 'migrate_datacenter':
      return 'migrating';
    case 'rebuild':
      return 'rebuilding';
    case 'clone':
      return 'provisioning';
    case 'restore':
      return 'restoring';
  }
}

/** A cold migration: the instance is shut down and shows `offline` while it is moved. */
const coldMigration = (p: OpPayload) =>
  (p.op === 'migrate' || p.op === 'migrate_datacenter') && p.endStatus !== 'running';

async function setStatus(ctx: JobContext, id: number, status: InstanceStatus): Promise<void> {
  await ctx.db.db
    .updateTable('instances')
    .set({ status, seen_status: null, updated: isoSeconds(ctx.clock.nowMs()) })
    .where('id', '=', id)
    .execute();
}

/** What each operation changes when its work is done (in the last step's transaction). */
async function applyEffects(ctx: JobContext, p: OpPayload): Promise<void> {
  const now = isoSeconds(ctx.clock.nowMs());
  await ctx.db.db
    .updateTable('disks')
    .set({ status: 'ready', updated: now })
    .where('instance_id', '=', p.instanceId)
    .where('status', '=', 'not ready')
    .execute();
  switch (p.op) {
    case 'resize':
    case 'mutate':
      if (p.type) await applyTypeChange(ctx.db, p.instanceId, p.type, !!p.allowAutoDiskResize, now);
      break;
    case 'migrate':
    case 'migrate_datacenter': {
      const pending = await readPendingMigration(ctx.db, p.instanceId);
      if (p.op === 'migrate_datacenter' && pending?.region)
        await finishDatacenterMove(ctx.db, p.instanceId, pending, now);
      if (p.type) await applyTypeChange(ctx.db, p.instanceId, p.type, false, now);
      // The new host keeps the instance's placement group compliant (placement area); a move
      // into a group (`placement_group` of the request) makes it a member there.
      const host = await finishMigration(
        ctx,
        { id: p.instanceId, pending_migration: pending ? JSON.stringify(pending) : null },
        p.op === 'migrate_datacenter',
      );
      await ctx.db.db
        .updateTable('instances')
        .set({ host_uuid: host, pending_migration: null })
        .where('id', '=', p.instanceId)
        .execute();
      break;
    }
    case 'rebuild':
      if (p.type) await applyTypeChange(ctx.db, p.instanceId, p.type, false, now);
      break;
    case 'clone':
      if (p.sourceId !== undefined) await finishClone(ctx.db, p.sourceId, p.instanceId, now);
      break;
    default:
      break;
  }
}

/**
 * Resize, mutate, migrate, rebuild, clone and restore: the instance shows the operation's status
 * while the event goes `scheduled` → `started` (percent_complete rising) → `finished`; then the
 * instance boots (a `compute_boot` event) if the operation shut it down, or ends in `endStatus`.
 */
export const opJob = defineJob<OpPayload>({
  name: 'compute.op',
  version: 1,
  payload: Type.Object({ op: Type.String(), instanceId: Type.Integer() }),
  maxAttempts: 5,
  perform: performOp,
  async handle(ctx, p) {
    const inst = await instanceById(ctx.db, p.instanceId);
    if (!inst || inst.status === 'deleting') {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The instance was deleted.',
      });
      if (p.op === 'clone' && p.sourceId !== undefined)
        await finishClone(ctx.db, p.sourceId, p.instanceId, isoSeconds(ctx.clock.nowMs()));
      return undefined;
    }
    const delayMs = ctx.timing.stepMs(KIND[p.op], STEPS);
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs };
    }
    if (p.step < STEPS) {
      if (p.step === STEPS / 2 && coldMigration(p)) {
        // `migrating` holds until read (status-hold.ts), then the move shows `offline`.
        const hold = await holdDelay(ctx, p.instanceId, p);
        if (hold) return { next: { ...p, holdFrom: hold.holdFrom }, delayMs: hold.delayMs };
        await setStatus(ctx, p.instanceId, 'offline');
      }
      await ctx.events.update(ctx.db, p.eventId, {
        percentComplete: Math.round((p.step / STEPS) * 100),
      });
      // One hold of HOLD_MS from the request covers the start and the end (the start job passes
      // its `holdFrom` on); a cold migration's `offline` gets its own from the midpoint.
      if (p.step === STEPS / 2 && coldMigration(p)) {
        const { holdFrom: _, ...next } = p;
        return { next: { ...next, step: p.step + 1 }, delayMs };
      }
      return { next: { ...p, step: p.step + 1 }, delayMs };
    }
    const hold = await holdDelay(ctx, p.instanceId, p, coldMigration(p) ? 'offline' : undefined);
    if (hold) return { next: { ...p, holdFrom: hold.holdFrom }, delayMs: hold.delayMs };
    await applyEffects(ctx, p);
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    if (!p.bootAfter) {
      await setStatus(ctx, p.instanceId, p.endStatus);
      return undefined;
    }
    const after = await instanceById(ctx.db, p.instanceId);
    const configs = await ctx.db.db
      .selectFrom('configs')
      .select('id')
      .where('instance_id', '=', p.instanceId)
      .orderBy('id')
      .execute();
    const ids = configs.map((c) => c.id);
    const configId =
      p.configId !== null && ids.includes(p.configId)
        ? p.configId
        : after?.last_booted_config_id !== null &&
            after?.last_booted_config_id !== undefined &&
            ids.includes(after.last_booted_config_id)
          ? after.last_booted_config_id
          : (ids[0] ?? null);
    if (configId === null || !after) {
      await setStatus(ctx, p.instanceId, 'offline');
      return undefined;
    }
    await setStatus(ctx, p.instanceId, 'booting');
    const eventId = await ctx.events.record(ctx.db, {
      accountId: p.accountId,
      action: 'compute_boot',
      entity: entityRefs.compute(after.id, after.label),
      secondaryEntity: await configRef(ctx.db, after.id, configId),
      status: 'scheduled',
      username: p.username,
    });
    await ctx.queue.enqueue(
      ctx.db,
      lifecycleJob,
      {
        instanceId: after.id,
        accountId: p.accountId,
        op: 'boot',
        eventId,
        step: 0,
        configId,
        username: p.username,
      },
      { accountId: p.accountId, entity: { type: 'compute', id: after.id } },
    );
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
    await abandonOp(ctx, p);
  },
});

/** A failed operation: the instance ends `offline`; a clone's source and a migration let go. */
async function abandonOp(ctx: JobContext, p: Omit<OpPayload, 'eventId'>): Promise<void> {
  const now = isoSeconds(ctx.clock.nowMs());
  if (p.op === 'clone' && p.sourceId !== undefined)
    await finishClone(ctx.db, p.sourceId, p.instanceId, now);
  if (p.op === 'migrate' || p.op === 'migrate_datacenter')
    await abandonMigration(ctx.db, p.instanceId);
  await ctx.db.db
    .updateTable('instances')
    .set({ status: 'offline', pending_migration: null, updated: now })
    .where('id', '=', p.instanceId)
    .execute();
}

/**
 * The start of an operation (ops.start.ts enqueues it with the request). On the real service an
 * operation's event appears when a worker takes the work up, a moment after the request: a
 * client that makes its event poller after the request (the Python SDK's `EventPoller` keeps the
 * events it finds when made and waits for a new one) finds it then. Here the start waits, under
 * every timing profile, until a client reads the account's events (src/jobs/feed-read.ts) or the
 * instance (status-hold.ts), or at most HOLD_MS of the job clock (one hold with the end's: the
 * operation's job gets the same `holdFrom`); then it records the event `started`, as the wire records these actions (`compute_clone`, `backups_restore`: `started`,
 * then `finished`, never `scheduled`), and hands over to the operation's job.
 */
export const opStartJob = defineJob<OpStartPayload>({
  name: FEED_READ_JOB,
  version: 1,
  payload: Type.Object({ op: Type.String(), instanceId: Type.Integer(), action: Type.String() }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const { action, eventEntity, eventSecondary, ...op } = p;
    const inst = await instanceById(ctx.db, p.instanceId);
    if (!inst || inst.status === 'deleting') {
      // Deleted before the work started: nothing started, no event.
      if (p.op === 'clone' && p.sourceId !== undefined)
        await finishClone(ctx.db, p.sourceId, p.instanceId, isoSeconds(ctx.clock.nowMs()));
      return undefined;
    }
    const eventId = await ctx.events.record(ctx.db, {
      accountId: p.accountId,
      action,
      entity: eventEntity
        ? entityRefs.compute(eventEntity.id, eventEntity.label)
        : entityRefs.compute(inst.id, inst.label),
      secondaryEntity: eventSecondary
        ? entityRefs.compute(eventSecondary.id, eventSecondary.label)
        : null,
      status: 'started',
      username: p.username,
    });
    await ctx.queue.enqueue(
      ctx.db,
      opJob,
      { ...op, eventId, step: 0 },
      { accountId: p.accountId, entity: { type: 'compute', id: inst.id } },
    );
    return undefined;
  },
  async onFailure(ctx, p, error) {
    const { action, eventEntity, eventSecondary: _, holdFrom: __, ...op } = p;
    await ctx.events.record(ctx.db, {
      accountId: p.accountId,
      action,
      entity: entityRefs.compute(eventEntity?.id ?? p.instanceId, eventEntity?.label ?? null),
      status: 'failed',
      message: error.message,
      username: p.username,
    });
    await abandonOp(ctx, op);
  },
});

export const opJobs = [opStartJob, opJob];
