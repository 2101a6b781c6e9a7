import { Type } from '@sinclair/typebox';
import type { JobContext, PerformResult, WorkContext } from '../../jobs/job.js';
import { catchUp, defineJob } from '../../jobs/job.js';
import { statement } from '../../db/statement.js';
import type { WorkKind } from '../../jobs/timing.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { isoSeconds } from '../../lib/time.js';
import type { DeleteCascade } from '../../entities/entities.js';
import { type EventChange, entityRefs } from '../events/events.types.js';
import { removeFromConfigs } from './volumes.repository.js';

/** Progress steps of each volume operation (percent_complete moves at each). */
export const VOLUME_STEPS = 4;

export type VolumeOp = 'create' | 'resize' | 'clone';

export interface VolumeJobPayload {
  /** The volume whose status moves: the new volume for create and clone. */
  volumeId: number;
  accountId: number;
  op: VolumeOp;
  eventId: number;
  step: number;
  /** Clone: the volume copied (the job's entity, busy meanwhile). */
  sourceId?: number;
}

const KIND: Record<VolumeOp, WorkKind> = {
  create: 'volume_create',
  resize: 'volume_resize',
  clone: 'volume_clone',
};

/** The volume active at the end of its work; false when it is not there. */
async function activate(ctx: JobContext, id: number): Promise<boolean> {
  return (await activateVolume.affected(ctx.db, id, isoSeconds(ctx.clock.nowMs()))) > 0;
}
const activateVolume = statement('volumes.activate', ({ db }, id: number, updated: string) =>
  db.updateTable('volumes').set({ status: 'active', updated }).where('id', '=', id),
);

/** Only a real driver's last step has work outside the database: the volume's file. */
const performs = (machines: ComputeDriver, p: VolumeJobPayload): boolean =>
  machines.real && p.step >= VOLUME_STEPS;

/**
 * The compute driver's work (src/machines), before the last step, outside the transaction: the
 * volume's file is made, grown, or copied from its source. Nothing with the simulated driver.
 */
async function performVolume(
  ctx: WorkContext,
  p: VolumeJobPayload,
): Promise<PerformResult<VolumeJobPayload>> {
  if (!performs(ctx.machines, p)) return { payload: p };
  const vol = await ctx.db.db
    .selectFrom('volumes')
    .select(['id', 'size', 'region', 'label', 'compute_id'])
    .where('id', '=', p.volumeId)
    .executeTakeFirst();
  if (!vol) return { payload: p };
  const ref = { volumeId: vol.id, region: vol.region, label: vol.label };
  if (p.op === 'resize')
    await ctx.machines.resizeVolume(ref, vol.size, vol.compute_id ?? undefined);
  else if (p.op === 'clone' && p.sourceId !== undefined) {
    const src = await ctx.db.db
      .selectFrom('volumes')
      .select(['id', 'region'])
      .where('id', '=', p.sourceId)
      .executeTakeFirst();
    await ctx.machines.createVolume(
      ref,
      vol.size,
      src ? { volumeId: src.id, region: src.region } : undefined,
    );
  } else await ctx.machines.createVolume(ref, vol.size);
  return { payload: p };
}

/**
 * Create (`creating` → `active`), resize (`resizing` → `active`) and clone (the new volume is
 * `creating` until done; the job's entity is the source, which is busy meanwhile).
 */
export const volumeJob = defineJob<VolumeJobPayload>({
  name: 'volumes.work',
  version: 1,
  payload: Type.Object({ volumeId: Type.Integer(), op: Type.String() }),
  maxAttempts: 5,
  perform: performVolume,
  performs,
  async handle(ctx, p) {
    // The volume may be gone (nothing deletes a volume whose work is under way, but a job must not
    // bring a missing row's event to `finished`): each step's own statement checks it (the event's
    // change, guarded by the volume's row; the last step's update of the volume), and only a step
    // that wrote nothing looks further (the event may be the row that is gone).
    const gone = async () => {
      const vol = await ctx.db.db
        .selectFrom('volumes')
        .select('id')
        .where('id', '=', p.volumeId)
        .executeTakeFirst();
      if (vol) return false;
      await ctx.events.update(ctx.db, p.eventId, {
        status: 'failed',
        message: 'The volume was deleted.',
      });
      return true;
    };
    const guard = { table: 'volumes', id: p.volumeId } as const;
    // A step taken late brings along the steps whose time has also passed (their progress
    // reports would be superseded unseen): a burst of creates is not worked five times over. A
    // last step with work of its own first (`performs`: a real driver's) is never taken along.
    const { step, delayMs } = catchUp(
      p.step,
      performs(ctx.machines, { ...p, step: VOLUME_STEPS }) ? VOLUME_STEPS - 1 : VOLUME_STEPS,
      ctx.timing.stepMs(KIND[p.op], VOLUME_STEPS),
      ctx.lateMs,
    );
    if (step < VOLUME_STEPS) {
      const change: EventChange = {
        ...(p.step === 0 ? { status: 'started' } : {}),
        percentComplete: Math.round((step / VOLUME_STEPS) * 100),
      };
      const moved = await ctx.events.update(ctx.db, p.eventId, change, guard);
      if (!moved && (await gone())) return undefined;
      return { next: { ...p, step: step + 1 }, delayMs };
    }
    if (!(await activate(ctx, p.volumeId))) {
      await gone();
      return undefined;
    }
    await ctx.events.update(ctx.db, p.eventId, { status: 'finished' });
    return undefined;
  },
  async onFailure(ctx, p, error) {
    await ctx.events.update(ctx.db, p.eventId, { status: 'failed', message: error.message });
    // Whatever failed, the volume is left in a state a client can act on.
    await activate(ctx, p.volumeId);
  },
});

export const volumeJobs = [volumeJob];

/** Detaches every volume of an instance that is being deleted (in the delete job's transaction). */
export const detachOnInstanceDelete: DeleteCascade = async (db, inst, ctx) => {
  const attached = await db
    .forUpdate(
      db.db
        .selectFrom('volumes')
        .select(['id', 'label', 'account_id'])
        .where('compute_id', '=', inst.id),
    )
    .execute();
  const now = isoSeconds(ctx.clock.nowMs());
  for (const v of attached) {
    await removeFromConfigs(db, inst.id, v.id, now);
    await db.db
      .updateTable('volumes')
      .set({ compute_id: null, persist_across_boots: 0, updated: now })
      .where('id', '=', v.id)
      .execute();
    await ctx.events.record(db, {
      accountId: v.account_id,
      action: 'volume_detach',
      entity: entityRefs.volume(v.id, v.label),
      secondaryEntity: entityRefs.compute(inst.id, inst.label),
      status: 'notification',
      username: null,
    });
  }
};
