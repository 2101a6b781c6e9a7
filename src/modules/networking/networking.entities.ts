import type { EntityType } from '../../entities/entities.js';
import { dropDevice, firewallLabels } from './firewalls.repository.js';
import { ReservedIpSchema } from './ips.schemas.js';
import { networkingTransferCascade } from './networking.transfer.js';
import { ipRef, RESERVED_TYPE, reservedLabels, toApiReserved } from './reserved.repository.js';

/**
 * Firewalls: `firewall` in events and grants. A service's deletion takes it out of every
 * firewall's devices (compute here; nodebalancer once that type runs its delete cascades).
 * Reserved IPv4 addresses: `reserved_ipv4_address` among tags, named by their address in
 * `POST /tags` (`reserved_ipv4_addresses`).
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
  {
    type: RESERVED_TYPE,
    url: (id) => `/v4/networking/reserved/ips/${id}`,
    list: reservedLabels,
    taggable: {
      schema: ReservedIpSchema,
      field: 'reserved_ipv4_addresses',
      async resolve(db, accountId, keys) {
        if (keys.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('ip_addresses')
          .select(['id', 'address'])
          .where('account_id', '=', accountId)
          .where('reserved', '=', 1)
          .where('address', 'in', [...keys])
          .execute();
        return new Map(rows.map((r) => [r.address, r.id]));
      },
      async render({ db }, accountId, ids) {
        if (ids.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('ip_addresses')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('reserved', '=', 1)
          .where('id', 'in', [...ids])
          .execute();
        const api = await toApiReserved(db, rows);
        return new Map(rows.map((r, i) => [r.id, api[i]]));
      },
    },
    onDeleteOf: {
      // An instance's reserved addresses outlive it: unassigned, still reserved, still billed.
      compute: async (db, deleted, ctx) => {
        const held = await db.db
          .selectFrom('ip_addresses')
          .select(['id', 'address', 'account_id'])
          .where('instance_id', '=', deleted.id)
          .where('reserved', '=', 1)
          .execute();
        for (const ip of held) {
          await db.db
            .updateTable('ip_addresses')
            .set({ instance_id: null, rdns: null })
            .where('id', '=', ip.id)
            .execute();
          await ctx.events.record(db, {
            accountId: ip.account_id,
            action: 'reserved_ip_unassign',
            entity: ipRef(ip.address, ip.id),
            secondaryEntity: {
              type: 'compute',
              id: deleted.id,
              label: deleted.label,
              url: `/v4/compute/instances/${deleted.id}`,
            },
            status: 'notification',
            username: null,
          });
        }
      },
    },
  },
];
