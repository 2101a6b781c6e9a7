import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { networkUsageRoutes } from './network-usage.routes.js';
import { NetworkUsageService } from './network-usage.service.js';

/** The account's network transfer pool this month, from what its instances and buckets sent. */
export const networkUsageModule = defineArea({
  name: 'networkUsage',
  needs: [catalogueModule],
  tables: [],
  services: ({ db, clock }, { catalogue: { catalogue } }) => ({
    networkUsage: new NetworkUsageService({ db, clock, catalogue }),
  }),
  api: (ctx) => [networkUsageRoutes(ctx)],
});
