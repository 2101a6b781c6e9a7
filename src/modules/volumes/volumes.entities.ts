import type { EntityType } from '../../entities/entities.js';
import { VolumeSchema } from './volumes.schemas.js';
import { detachOnInstanceDelete } from './volumes.jobs.js';
import { toApiVolumes, volumeLabels } from './volumes.repository.js';
import { volumesTransferCascade } from './volumes.transfer.js';

/** Block volumes: `volume` in events, grants and tags; an instance's deletion detaches them. */
export const volumeEntities: EntityType[] = [
  {
    type: 'volume',
    grant: 'volume',
    url: (id) => `/v4/volumes/${id}`,
    list: volumeLabels,
    onDeleteOf: { compute: detachOnInstanceDelete },
    onTransferOf: { compute: volumesTransferCascade },
    taggable: {
      schema: VolumeSchema,
      field: 'volumes',
      async render({ db }, accountId, ids) {
        if (ids.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('volumes')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute();
        const api = await toApiVolumes(db, rows);
        return new Map(api.map((a) => [a.id, a]));
      },
    },
  },
];
