import type { EntityType } from '../../entities/entities.js';

/**
 * Managed services: `managed_service` in events. Their declaration also carries Managed's part
 * in service transfers: instances of a Managed account are not transferred (the reference's
 * conditions), and an instance's SSH settings move with it otherwise.
 */
export const managedEntities: EntityType[] = [
  {
    type: 'managed_service',
    url: (id) => `/v4/managed/services/${id}`,
    list: (db, accountId) =>
      db.db
        .selectFrom('managed_services')
        .select(['id', 'label'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute(),
    onTransferOf: {
      compute: {
        async refuse(db, accountId) {
          const acct = await db.db
            .selectFrom('accounts')
            .select('managed')
            .where('id', '=', accountId)
            .executeTakeFirst();
          return acct?.managed
            ? 'Compute instances of an account with Managed enabled cannot be transferred.'
            : undefined;
        },
        async move(db, m) {
          await db.db
            .updateTable('managed_compute_settings')
            .set({ account_id: m.to })
            .where('instance_id', 'in', m.ids)
            .execute();
        },
      },
    },
  },
];
