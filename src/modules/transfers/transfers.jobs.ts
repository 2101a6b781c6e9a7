import { Type } from '@sinclair/typebox';
import { defineJob } from '../../jobs/job.js';
import { isoSeconds } from '../../lib/time.js';
import { findTransfer, markStale } from './transfers.repository.js';

export interface ExpirePayload {
  token: string;
}

/**
 * A pending transfer goes `stale` at its expiry, on the job clock. Queued with the transfer (in
 * its transaction), so it survives restarts; the row lock and the status check make a second run
 * (or a transfer accepted or canceled in between) a no-op.
 */
export const expireTransferJob = defineJob<ExpirePayload>({
  name: 'transfers.expire',
  version: 1,
  payload: Type.Object({ token: Type.String() }),
  maxAttempts: 5,
  async handle(ctx, p) {
    const row = await findTransfer(ctx.db, p.token, true);
    if (row?.status !== 'pending') return undefined;
    const now = ctx.clock.nowMs();
    if (now < row.expiry_ms) return { next: p, delayMs: row.expiry_ms - now };
    await markStale(ctx.db, ctx.events, row, isoSeconds(now));
    return undefined;
  },
});

export const transferJobs = [expireTransferJob];
