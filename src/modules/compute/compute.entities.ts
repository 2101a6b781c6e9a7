import type { EntityType } from '../../entities/entities.js';
import { instanceLabels } from './compute.repository.js';

/** Compute instances: `compute` in events and grants. */
export const computeEntities: EntityType[] = [
  {
    type: 'compute',
    grant: 'compute',
    url: (id) => `/v4/compute/instances/${id}`,
    list: instanceLabels,
  },
];
