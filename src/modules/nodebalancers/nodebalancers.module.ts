import { subsystem } from '../../logger.js';
import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { networkingModule } from '../networking/networking.module.js';
import { nbConfigsRoutes } from './configs.routes.js';
import { NbConfigsService } from './configs.service.js';
import { nodebalancerEntities } from './nodebalancers.entities.js';
import { nodebalancersRoutes } from './nodebalancers.routes.js';
import { NodeBalancersService } from './nodebalancers.service.js';
import { NbNodesService } from './nodes.service.js';

/** NodeBalancers, their configs (TLS keys sealed) and nodes; addresses and firewalls are networking's. */
export const nodebalancersModule = defineArea({
  name: 'nodebalancers',
  needs: [catalogueModule, networkingModule],
  tables: ['nodebalancers', 'nodebalancer_configs', 'nodebalancer_nodes', 'nodebalancer_vpcs'],
  entities: nodebalancerEntities,
  services: (p, { catalogue: { catalogue }, networking }) => {
    const { db, clock, events, entities, sealer } = p;
    const nodebalancers = new NodeBalancersService({
      db,
      clock,
      events,
      catalogue,
      ips: networking.ipAllocator,
      entities,
      cascade: {
        clock,
        timing: p.timing,
        events,
        queue: p.queue,
        entities,
        log: subsystem(p.log, 'nodebalancers'),
      },
      firewalls: networking.firewalls,
      sealer,
    });
    return {
      nodebalancers,
      configs: new NbConfigsService({ db, clock, events, sealer }, nodebalancers),
      nodes: new NbNodesService({ db, clock, events, sealer }, nodebalancers),
    };
  },
  api: (ctx) => [nodebalancersRoutes(ctx), nbConfigsRoutes(ctx)],
});
