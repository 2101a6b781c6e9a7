import { defineArea } from '../../platform/area.js';
import { startLock } from '../controls/state.service.js';
import { catalogueData } from './catalogue.data.js';
import { seedCatalogue } from './catalogue.repository.js';
import { catalogueRoutes } from './catalogue.routes.js';
import { CatalogueService } from './catalogue.service.js';

/** Regions, instance types, kernels and public images: shipped data, written at every start. */
export const catalogueModule = defineArea({
  name: 'catalogue',
  needs: [],
  tables: ['regions', 'region_availability', 'types', 'kernels', 'images'],
  services: ({ db }) => {
    const data = catalogueData();
    return { catalogue: new CatalogueService(db, data), data };
  },
  // Processes starting together each rewrite the catalogue: one at a time (PostgreSQL).
  start: ({ data }, { db }) =>
    db.transaction(async (tx) => {
      await startLock(tx);
      await seedCatalogue(tx, data);
    }),
  api: (ctx) => [catalogueRoutes(ctx)],
  // An imported snapshot gets the shipped catalogue, whatever its server shipped.
  stateHooks: ({ data }) => [{ name: 'catalogue', importData: (tx) => seedCatalogue(tx, data) }],
});
