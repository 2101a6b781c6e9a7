import type { EntityType } from '../../entities/entities.js';
import { ComputeSchema } from './compute.schemas.js';
import { instanceLabels, toApiInstances } from './compute.repository.js';
import { computeTransferable, computeTransferCascade } from './compute.transfer.js';

/** Compute instances: `compute` in events, grants and tags. */
export const computeEntities: EntityType[] = [
  {
    type: 'compute',
    grant: 'compute',
    url: (id) => `/v4/compute/instances/${id}`,
    list: instanceLabels,
    transferable: computeTransferable,
    onTransferOf: { compute: computeTransferCascade },
    taggable: {
      schema: ComputeSchema,
      field: 'computes',
      async render({ db, catalogue }, accountId, ids) {
        if (ids.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('instances')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute();
        const api = await toApiInstances(db, catalogue, rows);
        return new Map(api.map((a) => [a.id, a]));
      },
    },
  },
];
