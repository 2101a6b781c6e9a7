import { defineArea } from '../../platform/area.js';
import { agreementsRoutes } from './agreements.routes.js';
import { AgreementsService } from './agreements.service.js';

/** The agreements an account acknowledged. */
export const agreementsModule = defineArea({
  name: 'agreements',
  needs: [],
  tables: ['account_agreements'],
  services: ({ db, clock }) => ({ agreements: new AgreementsService({ db, clock }) }),
  api: (ctx) => [agreementsRoutes(ctx)],
});
