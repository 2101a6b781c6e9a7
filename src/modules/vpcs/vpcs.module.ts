import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { SubnetsService } from './subnets.service.js';
import { vpcEntities } from './vpcs.entities.js';
import { vpcsRoutes } from './vpcs.routes.js';
import { VpcsService } from './vpcs.service.js';

/** VPCs and their subnets (the addresses of VPC interfaces are the compute area's). */
export const vpcsModule = defineArea({
  name: 'vpcs',
  needs: [catalogueModule],
  tables: ['vpcs', 'vpc_subnets'],
  entities: vpcEntities,
  services: ({ db, clock, events }, { catalogue: { catalogue } }) => {
    const vpcs = new VpcsService({ db, clock, events, catalogue });
    return { vpcs, subnets: new SubnetsService(vpcs) };
  },
  api: (ctx) => [vpcsRoutes(ctx)],
});
