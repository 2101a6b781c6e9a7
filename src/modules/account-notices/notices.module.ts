import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { noticeJobs } from './maintenance.jobs.js';
import { MaintenanceService } from './maintenance.service.js';
import { noticesOperatorRoutes, noticesRoutes } from './notices.routes.js';
import { NoticesService } from './notices.service.js';

/** Scheduled maintenance (the operator's), notifications and service availability. */
export const accountNoticesModule = defineArea({
  name: 'accountNotices',
  needs: [catalogueModule],
  tables: ['maintenances'],
  jobs: noticeJobs,
  services: ({ db, clock, queue, events }, { catalogue }) => ({
    notices: new NoticesService({ db, clock, catalogue: catalogue.data }),
    maintenance: new MaintenanceService({ db, clock, queue, events }),
  }),
  api: (ctx) => [noticesRoutes(ctx)],
  internal: (ctx) => [noticesOperatorRoutes(ctx)],
});
