import type { TransferCascade } from '../../entities/entities.js';

/** Volumes stay with their account: an instance with attached volumes is not transferred. */
export const volumesTransferCascade: TransferCascade = {
  async refuse(db, _accountId, ids) {
    const attached = await db.db
      .selectFrom('volumes')
      .select('id')
      .where('compute_id', 'in', ids)
      .executeTakeFirst();
    return attached ? 'Compute instances with attached volumes cannot be transferred.' : undefined;
  },
};
