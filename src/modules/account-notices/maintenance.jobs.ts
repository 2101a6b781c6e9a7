import { Type } from '@sinclair/typebox';
import { defineJob } from '../../jobs/job.js';
import { findMaintenance } from './maintenance.repository.js';

export interface WindowPayload {
  maintenanceId: number;
}

/**
 * A maintenance window on the job clock: `pending` until `when`, `started` until `until`, then
 * `completed`. Queued with the maintenance, so it survives restarts; a canceled maintenance ends
 * it. Each step re-reads the locked row, so a second runner changes nothing.
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
    if (now < row.when_ms) return { next: p, delayMs: row.when_ms - now };
    const status = now < row.until_ms ? 'started' : 'completed';
    if (status !== row.status) {
      await ctx.db.db
        .updateTable('maintenances')
        .set({ status })
        .where('id', '=', row.id)
        .execute();
    }
    return status === 'started' ? { next: p, delayMs: row.until_ms - now } : undefined;
  },
});

export const noticeJobs = [maintenanceWindowJob];
