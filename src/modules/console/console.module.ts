import { defineArea } from '../../platform/area.js';
import { ConsoleFiles } from './console.files.js';
import { consoleRoutes } from './console.routes.js';

/**
 * The web console (the single-page app in `console/`, built into `dist/console/`): its page at
 * `/` (the landing page) and `/console/…`, its hashed assets, and `/_stratus/info`, the server
 * facts the landing page shows. It talks to the server only through the public API, the login
 * service and the operator endpoints.
 */
export const consoleModule = defineArea({
  name: 'console',
  needs: [],
  tables: [],
  services: ({ config }) => ({ files: new ConsoleFiles(config.consoleDir) }),
  internal: (ctx) => [consoleRoutes(ctx)],
});
