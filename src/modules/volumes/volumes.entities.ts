import type { EntityType } from '../../entities/entities.js';
import { detachOnInstanceDelete } from './volumes.jobs.js';
import { volumeLabels } from './volumes.repository.js';

/** Block volumes: `volume` in events and grants; an instance's deletion detaches them. */
export const volumeEntities: EntityType[] = [
  {
    type: 'volume',
    grant: 'volume',
    url: (id) => `/v4/volumes/${id}`,
    list: volumeLabels,
    onDeleteOf: { compute: detachOnInstanceDelete },
  },
];
