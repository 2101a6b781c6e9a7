import type { EntityType } from '../../entities/entities.js';
import { dropDevice, firewallLabels } from './firewalls.repository.js';

/**
 * Firewalls: `firewall` in events and grants. A service's deletion takes it out of every
 * firewall's devices (compute here; nodebalancer once that type runs its delete cascades).
 */
export const networkingEntities: EntityType[] = [
  {
    type: 'firewall',
    grant: 'firewall',
    url: (id) => `/v4/networking/firewalls/${id}`,
    list: firewallLabels,
    onDeleteOf: {
      compute: (db, deleted) => dropDevice(db, 'compute', deleted.id),
      nodebalancer: (db, deleted) => dropDevice(db, 'nodebalancer', deleted.id),
    },
  },
];
