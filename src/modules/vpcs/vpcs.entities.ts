import type { EntityType } from '../../entities/entities.js';
import { vpcLabels } from './vpcs.repository.js';

/** VPCs: `vpc` in events and grants. Subnet events name `subnet` (no grants of their own). */
export const vpcEntities: EntityType[] = [
  {
    type: 'vpc',
    grant: 'vpc',
    url: (id) => `/v4/vpcs/${id}`,
    list: vpcLabels,
  },
];
