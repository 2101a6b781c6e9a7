import { defineArea } from '../../platform/area.js';
import { betasRoutes } from './betas.routes.js';
import { BetasService } from './betas.service.js';

/** Beta programs (shipped with the server) and the account's enrolments. */
export const betasModule = defineArea({
  name: 'betas',
  needs: [],
  tables: ['beta_enrollments'],
  services: ({ db, clock }) => ({ betas: new BetasService({ db, clock }) }),
  api: (ctx) => [betasRoutes(ctx)],
});
