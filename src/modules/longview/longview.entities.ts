import type { EntityType } from '../../entities/entities.js';

/** Longview clients: `longview` in events and grants. */
export const longviewEntities: EntityType[] = [
  {
    type: 'longview',
    grant: 'longview',
    url: (id) => `/v4/longview/clients/${id}`,
    list: (db, accountId) =>
      db.db
        .selectFrom('longview_clients')
        .select(['id', 'label'])
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute(),
  },
];
