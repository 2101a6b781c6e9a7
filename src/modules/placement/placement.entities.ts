import type { EntityType } from '../../entities/entities.js';
import { settleCompliance } from './placement.compliance.js';
import { groupLabels } from './placement.repository.js';

/**
 * Placement groups: `placement_group` in events. An instance that goes away (deleted) or leaves
 * the account (a service transfer's accept) leaves its group, whose compliance is settled again.
 */
export const placementEntities: EntityType[] = [
  {
    type: 'placement_group',
    url: (id) => `/v4/placement/groups/${id}`,
    list: groupLabels,
    onDeleteOf: {
      compute: async (db, deleted, ctx) => {
        const m = await db.db
          .selectFrom('placement_group_members')
          .select('placement_group_id')
          .where('instance_id', '=', deleted.id)
          .executeTakeFirst();
        if (!m) return;
        await db.db
          .deleteFrom('placement_group_members')
          .where('instance_id', '=', deleted.id)
          .execute();
        await settleCompliance({ ...ctx, db }, m.placement_group_id);
      },
    },
    onTransferOf: {
      compute: {
        // The group stays with the sending account: the instances leave it.
        async move(db, m) {
          await db.db
            .deleteFrom('placement_group_members')
            .where('instance_id', 'in', [...m.ids])
            .execute();
        },
      },
    },
  },
];
