import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { volumeEntities } from './volumes.entities.js';
import { volumeJobs } from './volumes.jobs.js';
import { volumesRoutes } from './volumes.routes.js';
import { VolumesService } from './volumes.service.js';

/** Block storage volumes: create, attach and detach (jobs), clone, resize. */
export const volumesModule = defineArea({
  name: 'volumes',
  needs: [catalogueModule],
  tables: ['volumes'],
  entities: volumeEntities,
  jobs: volumeJobs,
  services: ({ db, clock, events, queue }, { catalogue: { catalogue } }) => ({
    volumes: new VolumesService({ db, clock, events, queue, catalogue }),
  }),
  api: (ctx) => [volumesRoutes(ctx)],
});
