import type { EntityType } from '../../entities/entities.js';
import { dropDevice, firewallLabels } from './firewalls.repository.js';
import { networkingTransferCascade } from './networking.transfer.js';

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
      // The networking area's cascade for an instance: out of firewalls, its IPv6 ranges and
      // shares released (declared here: firewalls are the area's one entity type).
      compute: async (db, deleted) => {
        await dropDevice(db, 'compute', deleted.id);
        await db.db.deleteFrom('ip_shares').where('instance_id', '=', deleted.id).execute();
        await db.db.deleteFrom('ipv6_ranges').where('instance_id', '=', deleted.id).execute();
      },
      nodebalancer: (db, deleted) => dropDevice(db, 'nodebalancer', deleted.id),
    },
    onTransferOf: { compute: networkingTransferCascade },
  },
];
