import type { EntityType } from '../../entities/entities.js';
import { nodebalancerLabels, toApiNbs } from './nodebalancers.repository.js';
import { NodeBalancerSchema } from './nodebalancers.schemas.js';
import { nodebalancersTransferCascade } from './nodebalancers.transfer.js';

/**
 * NodeBalancers: `nodebalancer` in events, grants and tags. Firewall devices of type
 * `nodebalancer` resolve through this declaration (`ctx.entities.get('nodebalancer')`).
 */
export const nodebalancerEntities: EntityType[] = [
  {
    type: 'nodebalancer',
    grant: 'nodebalancer',
    url: (id) => `/v4/nodebalancers/${id}`,
    list: nodebalancerLabels,
    onTransferOf: { compute: nodebalancersTransferCascade },
    taggable: {
      field: 'nodebalancers',
      schema: NodeBalancerSchema,
      async render({ db }, accountId, ids) {
        if (ids.length === 0) return new Map();
        const rows = await db.db
          .selectFrom('nodebalancers')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('id', 'in', ids)
          .execute();
        const api = await toApiNbs(db, rows);
        return new Map(api.map((a) => [a.id, a]));
      },
    },
  },
];
