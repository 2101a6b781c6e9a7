import type { PerformResult, WorkContext } from '../../jobs/job.js';
import { parseJson } from '../../db/database.js';
import { catalogueData } from '../catalogue/catalogue.data.js';
import { contentsOf } from './backups.repository.js';
import type { BackupPayload } from './backups.jobs.js';
import { diskInUse, findDisk, instanceById } from './compute.repository.js';
import type { LifecyclePayload } from './compute.jobs.js';
import type { DeletePayload } from './compute.jobs.js';
import type { DiskJobPayload } from './disks.jobs.js';
import { machineSpec, syncInstanceDisks } from './machines.seam.js';
import { diskFit, type PendingMigration } from './ops.effects.js';
import type { OpPayload } from './ops.jobs.js';

/**
 * The compute jobs' `perform` phases: the driver work of a step (src/jobs/job.ts), done before the
 * step's transaction and outside it. Each acts only at the step where the work belongs (the last
 * one, or the first for an operation that turns the machine off) and does nothing with the
 * simulated driver. Disks get their bytes before the step that makes them `ready`; a machine is
 * started before the step that shows `running`, and off before `offline`.
 */

/** Where a graceful shutdown is: when the power button was pressed (job clock, ms). */
export interface MachineProgress {
  pressedAt?: number;
}

type WithMachine<P> = P & { machine?: MachineProgress };

const POLL_MS = 1000;
/** The last step of the compute jobs (STEPS of compute.jobs.ts, which imports this file). */
const LAST = 4;

/**
 * Turns the instance's machine off: the ACPI power button, then forced off once the grace period
 * (STRATUS_VM_SHUTDOWN_GRACE) has passed. `wait` means "come back to this step later".
 */
async function powerOff<P>(
  ctx: WorkContext,
  p: WithMachine<P>,
  instanceId: number,
): Promise<{ done: true } | { done: false; result: PerformResult<WithMachine<P>> }> {
  const { state } = await ctx.machines.status(instanceId);
  if (state === 'stopped') return { done: true };
  if (state !== 'running') {
    await ctx.machines.stop(instanceId);
    return { done: true };
  }
  const now = ctx.clock.nowMs();
  const pressedAt = p.machine?.pressedAt;
  if (pressedAt === undefined) {
    await ctx.machines.powerButton(instanceId);
    return {
      done: false,
      result: { payload: { ...p, machine: { pressedAt: now } }, waitMs: POLL_MS },
    };
  }
  const grace = ctx.machines.shutdownGraceMs;
  if (now - pressedAt < grace) return { done: false, result: { payload: p, waitMs: POLL_MS } };
  ctx.log.info({ instanceId }, 'the guest did not power off within the grace period: forced off');
  await ctx.machines.stop(instanceId);
  return { done: true };
}

/** Provision (disks get their bytes), boot (start), reboot (off, then start), shutdown (off). */
export async function performLifecycle(
  ctx: WorkContext,
  p: WithMachine<LifecyclePayload>,
): Promise<PerformResult<WithMachine<LifecyclePayload>>> {
  if (!ctx.machines.real || p.step < LAST) return { payload: p };
  const inst = await instanceById(ctx.db, p.instanceId);
  if (!inst || inst.status === 'deleting') return { payload: p };
  switch (p.op) {
    case 'provision':
      await syncInstanceDisks(ctx.db, ctx.machines, inst);
      return { payload: p };
    case 'shutdown': {
      const off = await powerOff(ctx, p, inst.id);
      return off.done ? { payload: { ...p, machine: {} } } : off.result;
    }
    case 'reboot': {
      const off = await powerOff(ctx, p, inst.id);
      if (!off.done) return off.result;
      await ctx.machines.start(await machineSpec(ctx.db, inst.id, p.configId, p.rescue ?? null));
      return { payload: { ...p, machine: {} } };
    }
    case 'boot':
      await ctx.machines.start(await machineSpec(ctx.db, inst.id, p.configId, p.rescue ?? null));
      return { payload: p };
  }
}

/** Delete: the machine stops at once and the instance's files go (its volumes stay). */
export async function performDelete(
  ctx: WorkContext,
  p: DeletePayload,
): Promise<PerformResult<DeletePayload>> {
  if (!ctx.machines.real || p.step < 2) return { payload: p };
  const inst = await instanceById(ctx.db, p.instanceId);
  if (inst) await ctx.machines.destroy({ instanceId: inst.id, region: inst.region });
  return { payload: p };
}

/** Disk create, clone, resize and delete: the bytes change before the step that ends the job. */
export async function performDisk(
  ctx: WorkContext,
  p: DiskJobPayload,
): Promise<PerformResult<DiskJobPayload>> {
  const steps = p.op === 'delete' ? 2 : LAST;
  if (!ctx.machines.real || p.step < steps) return { payload: p };
  const inst = await instanceById(ctx.db, p.instanceId);
  const disk = inst ? await findDisk(ctx.db, inst.id, p.diskId) : undefined;
  if (!inst || !disk || inst.status === 'deleting') return { payload: p };
  const ref = { instanceId: inst.id, region: inst.region, diskId: disk.id };
  switch (p.op) {
    case 'create':
    case 'clone':
      await syncInstanceDisks(ctx.db, ctx.machines, inst);
      break;
    case 'resize':
      // A disk in the running config fails the job in `handle`; its bytes stay as they are.
      if (!(await diskInUse(ctx.db, inst, disk.id)))
        await ctx.machines.resizeDisk(ref, {
          sizeMb: p.size ?? disk.size,
          filesystem: disk.filesystem,
        });
      break;
    case 'delete':
      await ctx.machines.deleteDisk(ref);
      break;
  }
  return { payload: p };
}

/**
 * The long operations: the machine goes off at the first step unless the operation keeps it
 * running (warm), and the files change at the last (a data-center move moves them, rebuild,
 * clone and restore make the new disks' bytes, resize and mutate resize the automatic disk).
 */
export async function performOp(
  ctx: WorkContext,
  p: WithMachine<OpPayload>,
): Promise<PerformResult<WithMachine<OpPayload>>> {
  if (!ctx.machines.real) return { payload: p };
  const inst = await instanceById(ctx.db, p.instanceId);
  if (!inst || inst.status === 'deleting') return { payload: p };
  const keepsRunning = p.endStatus === 'running' && !p.bootAfter;
  if (p.step === 0 && !keepsRunning && p.op !== 'clone') {
    const off = await powerOff(ctx, p, inst.id);
    return off.done ? { payload: { ...p, machine: {} } } : off.result;
  }
  if (p.step < LAST) return { payload: p };
  switch (p.op) {
    case 'resize':
    case 'mutate': {
      const type = catalogueData().types.find((t) => t.id === p.type);
      if (!type || !p.allowAutoDiskResize) break;
      const fit = await diskFit(ctx.db, inst.id, type, true);
      if (fit.autoDiskId === null || !fit.fits) break;
      const disk = await findDisk(ctx.db, inst.id, fit.autoDiskId);
      if (!disk) break;
      // A warm resize keeps the machine: the disk grows when it next boots off.
      if ((await ctx.machines.status(inst.id)).state !== 'stopped') break;
      await ctx.machines.resizeDisk(
        { instanceId: inst.id, region: inst.region, diskId: disk.id },
        { sizeMb: fit.autoSize, filesystem: disk.filesystem },
      );
      break;
    }
    case 'migrate_datacenter': {
      const pending = parseJson<PendingMigration | null>(inst.pending_migration, null);
      if (!pending?.region || pending.region === inst.region) break;
      const vols = await ctx.db.db
        .selectFrom('volumes')
        .select('id')
        .where('compute_id', '=', inst.id)
        .execute();
      await ctx.machines.moveInstance(
        inst.id,
        inst.region,
        pending.region,
        vols.map((v) => v.id),
      );
      // The rows still name the old region until `handle` commits: the disks are where they go.
      break;
    }
    case 'rebuild':
    case 'clone':
    case 'restore':
      await syncInstanceDisks(ctx.db, ctx.machines, inst);
      break;
    default:
      break;
  }
  return { payload: p };
}

/** A backup (or snapshot): the bytes of the disks it lists, copied at its last step. */
export async function performBackup(
  ctx: WorkContext,
  p: BackupPayload,
): Promise<PerformResult<BackupPayload>> {
  if (!ctx.machines.real || p.step < LAST) return { payload: p };
  const row = await ctx.db.db
    .selectFrom('backups')
    .selectAll()
    .where('id', '=', p.backupId)
    .executeTakeFirst();
  const inst = await instanceById(ctx.db, p.instanceId);
  if (!row || !inst || inst.status === 'deleting') return { payload: p };
  const have = new Set(await ctx.machines.listDisks({ instanceId: inst.id, region: inst.region }));
  const disks = contentsOf(row)
    .disks.filter((d) => have.has(d.key))
    .map((d) => ({ instanceId: inst.id, region: inst.region, diskId: d.key }));
  await ctx.machines.captureBackup(row.id, disks);
  return { payload: p };
}
