import type { EntityType } from '../../entities/entities.js';
import { domainLabels, toApiDomains } from './domains.repository.js';
import { DomainSchema } from './domains.schemas.js';

/** Domains: `domain` in events, grants (labelled with the zone's name) and tags. */
export const domainEntities: EntityType[] = [
  {
    type: 'domain',
    grant: 'domain',
    url: (id) => `/v4/domains/${id}`,
    list: domainLabels,
    taggable: {
      schema: DomainSchema,
      field: 'domains',
      async render({ db }, accountId, ids) {
        if (ids.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('domains')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute();
        const api = await toApiDomains(db, rows);
        return new Map(api.map((a) => [a.id, a]));
      },
    },
  },
];
