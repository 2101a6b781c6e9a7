import { dropInterfaces, interfacesOfInstance } from './compute-interfaces.service.js';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import { billInstance } from '../billing/billables.js';
import type { JobContext } from '../../jobs/job.js';
import { defineJob } from '../../jobs/job.js';
import type { WorkKind } from '../../jobs/timing.js';
import { isoSeconds } from '../../lib/time.js';
import { authz } from '../../auth/authz.js';
import { entityRefs } from '../events/events.types.js';
import { dropTags } from '../tags/tags.repository.js';
import { configRef, instanceById } from './compute.repository.js';
import type { InstanceStatus } from './compute.table.js';
import { performDelete, performLifecycle } from './machines.perform.js';
import { type Holdable, holdDelay } from './status-hold.js';

/** Progress steps of each long operation (percent_complete moves at each). */
export const STEPS = 4;

export type LifecycleOp = 'provision' | 'boot' | 'reboot' | 'shutdown';

export interface LifecyclePayload extends Holdable {
  instanceId: number;
  accountId: number;
  op: LifecycleOp;
  eventId: number;
  step: number;
  configId: number | null;
  /** After provisioning: boot, or stay offline. */
  thenBoot?: boolean;
  username: string | null;
  /** Rescue: the devices the rescue system boots with (the compute driver reads them). */
  rescue?: Record<string, { disk_id?: number | null; volume_id?: number | null } | null>;
}

const KIND: Record<LifecycleOp, WorkKind> = {
  provision: 'provision',
  boot: 'boot',
  reboot: 'reboot',
  shutdown: 'shutdown',
};

async function setStatus(ctx: JobContext, id: number, status: InstanceStatus): Promise<void> {
  await ctx.db.db
    .updateTable('instances')
    .set({ status, seen_status: null, updated: isoSeconds(ctx.clock.nowMs()) })
    .where('id', '=', id)
    .execute();
}

/** Opens the instance's uptime run (billing, network pool) unless one is open. */
export async function openRun(
  db: Database,
  instanceId: number,
  accountId: number,
  nowMs: number,
): Promise<void> {
  const open = await db.db
    .selectFrom('instance_runs')
    .select('id')
    .where('instance_id', '=', instanceId)
    .where('stopped_ms', 'is', null)
    .executeTakeFirst();
  if (open) return;
  await db.db
    .insertInto('instance_runs')
    .values({ instance_id: instanceId, account_id: accountId, started_ms: nowMs, stopped_ms: null })
    .execute();
}

export async function closeRun(db: Database, instanceId: number, nowMs: number): Promise<void> {
  await db.db
    .updateTable('instance_runs')
    .set({ stopped_ms: nowMs })
    .where('instance_id', '=', instanceId)
    .where('stopped_ms', 'is', null)
    .execute();
}

/** Create, boot, reboot and shutdown: one job that walks an instance through its statuses. */
export const lifecycleJob = defineJob<LifecyclePayload>({
  name: 'compute.lifecycle',
  version: 1,
  payload: Type.Object({ instanceId: Type.Integer(), op: Type.String() }),
  maxAttempts: 5,
  perform: performLifecycle,
  async handle(ctx, p) {
    const inst = await instanceById(ctx.db, p.instanceId);
    if (!inst) return undefined;
    if (inst.status === 'deleting') {
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The instance was deleted.',
      });
      return undefined;
    }
    const delay = ctx.timing.stepMs(KIND[p.op], STEPS);
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs: delay };
    }
    if (p.step < STEPS) {
      await ctx.events.update(ctx.db, p.eventId, {
        percentComplete: Math.round((p.step / STEPS) * 100),
      });
      return { next: { ...p, step: p.step + 1 }, delayMs: delay };
    }
    // `rebooting` and `shutting_down` hold until a client has read them (status-hold.ts).
    const hold = await holdDelay(ctx, p.instanceId, p);
    if (hold) return { next: { ...p, holdFrom: hold.holdFrom }, delayMs: hold.delayMs };
    const now = ctx.clock.nowMs();
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    switch (p.op) {
      case 'provision': {
        await ctx.db.db
          .updateTable('disks')
          .set({ status: 'ready', updated: isoSeconds(now) })
          .where('instance_id', '=', p.instanceId)
          .where('status', '=', 'not ready')
          .execute();
        if (p.thenBoot && p.configId !== null) {
          await setStatus(ctx, p.instanceId, 'booting');
          const eventId = await ctx.events.record(ctx.db, {
            accountId: p.accountId,
            action: 'compute_boot',
            entity: entityRefs.compute(inst.id, inst.label),
            secondaryEntity: await configRef(ctx.db, inst.id, p.configId),
            status: 'started',
            username: p.username,
            percentComplete: 0,
          });
          return {
            next: { ...p, op: 'boot', eventId, step: 1 },
            delayMs: ctx.timing.stepMs('boot', STEPS),
          };
        }
        await setStatus(ctx, p.instanceId, 'offline');
        return undefined;
      }
      case 'boot':
      case 'reboot':
        await setStatus(ctx, p.instanceId, 'running');
        await ctx.db.db
          .updateTable('instances')
          .set({ last_booted_config_id: p.configId })
          .where('id', '=', p.instanceId)
          .execute();
        await openRun(ctx.db, p.instanceId, p.accountId, ctx.clock.nowMs());
        return undefined;
      case 'shutdown':
        await setStatus(ctx, p.instanceId, 'offline');
        await closeRun(ctx.db, p.instanceId, now);
        return undefined;
    }
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
    const inst = await ctx.db.db
      .selectFrom('instances')
      .select('status')
      .where('id', '=', p.instanceId)
      .executeTakeFirst();
    if (!inst) return;
    // Whatever failed, the instance is left in a stable state a client can act on.
    await setStatus(
      ctx,
      p.instanceId,
      p.op === 'shutdown' || p.op === 'reboot' ? 'running' : 'offline',
    );
  },
});

export interface DeletePayload {
  instanceId: number;
  accountId: number;
  eventId: number;
  step: number;
}

/** Delete: releases addresses, runs the other areas' hooks, removes disks, configs and the instance. */
export const deleteJob = defineJob<DeletePayload>({
  name: 'compute.delete',
  version: 1,
  payload: Type.Object({ instanceId: Type.Integer() }),
  maxAttempts: 5,
  perform: performDelete,
  async handle(ctx, p) {
    const delay = ctx.timing.stepMs('delete', 2);
    if (p.step === 0) {
      await ctx.events.update(ctx.db, p.eventId, { status: 'started', percentComplete: 0 });
      return { next: { ...p, step: 1 }, delayMs: delay };
    }
    if (p.step === 1) {
      await ctx.events.update(ctx.db, p.eventId, { percentComplete: 50 });
      return { next: { ...p, step: 2 }, delayMs: delay };
    }
    const inst = await instanceById(ctx.db, p.instanceId);
    if (inst) {
      for (const cascade of ctx.entities.cascadesOf('compute')) await cascade(ctx.db, inst, ctx);
      await closeRun(ctx.db, inst.id, ctx.clock.nowMs());
      await ctx.db.db.deleteFrom('ip_addresses').where('instance_id', '=', inst.id).execute();
      await ctx.db.db.deleteFrom('config_interfaces').where('instance_id', '=', inst.id).execute();
      await dropInterfaces(
        ctx.db,
        (await interfacesOfInstance(ctx.db, inst.id)).map((r) => r.id),
      );
      await ctx.db.db.deleteFrom('configs').where('instance_id', '=', inst.id).execute();
      await ctx.db.db.deleteFrom('disks').where('instance_id', '=', inst.id).execute();
      // Its backups go with it (the automatic schedule ends itself when it finds no instance).
      await ctx.db.db.deleteFrom('backups').where('instance_id', '=', inst.id).execute();
      await ctx.db.db.deleteFrom('instance_clones').where('target_id', '=', inst.id).execute();
      if (ctx.machines.real) {
        // The compute driver's rows of the instance (src/modules/compute/machines.seam.ts).
        for (const table of ['instance_seeds', 'machine_samples', 'disk_sources'] as const)
          await ctx.db.db.deleteFrom(table).where('instance_id', '=', inst.id).execute();
      }
      await dropTags(ctx.db, 'compute', inst.id);
      await authz.dropEntity(ctx.db, 'compute', inst.id);
      await ctx.db.db.deleteFrom('instances').where('id', '=', inst.id).execute();
      await billInstance(ctx.db, inst.id, isoSeconds(ctx.clock.nowMs()));
    }
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
  },
});

export const computeJobs = [lifecycleJob, deleteJob];
