import { defineArea } from '../../platform/area.js';
import { transferJobs } from './transfers.jobs.js';
import { transfersRoutes } from './transfers.routes.js';
import { TransfersService } from './transfers.service.js';

/**
 * Service transfers (and the deprecated entity transfers) between accounts, over every entity
 * type declared `transferable`.
 */
export const transfersModule = defineArea({
  name: 'transfers',
  needs: [],
  tables: ['service_transfers'],
  jobs: transferJobs,
  services: ({ db, clock, events, queue, entities }) => ({
    transfers: new TransfersService({ db, clock, events, queue, entities }),
  }),
  api: (ctx) => [transfersRoutes(ctx)],
});
