import type { Database } from '../../db/database.js';
import type { EntitySummary, EntityType } from '../../entities/entities.js';
import type { EntityRef } from '../events/events.types.js';

/** The API path of a client: its public `client_id`, not the internal key. */
export const clientUrl = (clientId: string) => `/v4/account/oauth-clients/${clientId}`;

/** Event reference of a client: the internal integer key as `id` (events need an integer). */
export const clientRef = (row: { id: number; client_id: string; label: string }): EntityRef => ({
  type: 'oauth_client',
  id: row.id,
  label: row.label,
  url: clientUrl(row.client_id),
});

async function clientLabels(db: Database, accountId: number): Promise<EntitySummary[]> {
  return db.db
    .selectFrom('oauth_clients')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/**
 * OAuth clients: `oauth_client` in events. No grant type (account-area access governs them).
 * The API also finds a client by its integer key, so `url` names it exactly; events carry the
 * public-id form through `clientRef`.
 */
export const oauthEntities: EntityType[] = [
  {
    type: 'oauth_client',
    url: (id) => `/v4/account/oauth-clients/${id}`,
    list: clientLabels,
  },
];
