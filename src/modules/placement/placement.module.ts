import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { complyJob } from './placement.compliance.js';
import { placementEntities } from './placement.entities.js';
import { placementRoutes } from './placement.routes.js';
import { PlacementService } from './placement.service.js';

/**
 * Placement groups (`/placement/groups`): affinity and anti-affinity of instances over the hosts
 * of a region, strict or flexible, with their compliance. The compute area reads the groups
 * through this area's service (at create and migrate) and its repository (`placement_group` of
 * an instance).
 */
export const placementModule = defineArea({
  name: 'placement',
  needs: [catalogueModule],
  tables: ['placement_groups', 'placement_group_members'],
  entities: placementEntities,
  jobs: [complyJob],
  services: ({ db, clock, events, queue, timing }, { catalogue: { catalogue } }) => ({
    groups: new PlacementService({ db, clock, events, queue, timing, catalogue }),
  }),
  api: (ctx) => [placementRoutes(ctx)],
});
