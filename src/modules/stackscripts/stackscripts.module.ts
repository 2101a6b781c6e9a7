import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { stackScriptEntities } from './stackscripts.entities.js';
import { stackScriptsRoutes } from './stackscripts.routes.js';
import { StackScriptsService } from './stackscripts.service.js';

/** StackScripts (deployments are recorded by the compute area). */
export const stackscriptsModule = defineArea({
  name: 'stackscripts',
  needs: [catalogueModule],
  tables: ['stackscripts', 'stackscript_deployments'],
  entities: stackScriptEntities,
  services: ({ db, clock, events }, { catalogue: { catalogue } }) => ({
    stackScripts: new StackScriptsService({ db, clock, events, catalogue }),
  }),
  api: (ctx) => [stackScriptsRoutes(ctx)],
});
