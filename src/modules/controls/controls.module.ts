import { defineArea } from '../../platform/area.js';
import { controlsRoutes } from './controls.routes.js';
import { ControlsService } from './controls.service.js';
import { FaultSet } from './faults.js';
import { OperatorAuth } from './operator.js';
import { OperatorViews } from './operator-views.js';

/**
 * The emulator controls under `/_stratus/` (behind the operator token): timing, clock, faults,
 * reset and snapshots. Reset and snapshots are the platform's state service, which every area's
 * tables and state hooks feed.
 */
export const controlsModule = defineArea({
  name: 'controls',
  needs: [],
  tables: ['emulator_settings', 'emulator_fault_counters', 'rate_limit_counters'],
  services: ({ config, db, clock, timing, runner }) => {
    const faults = new FaultSet();
    return {
      controls: new ControlsService({ db, clock, timing, faults, runner }),
      faults,
      operator: new OperatorAuth(db, config.operatorToken),
      views: new OperatorViews({ db, clock, runner, inProcess: config.inProcessWorker }),
    };
  },
  // Settings stored by the controls (another process, an earlier run) apply from the start.
  start: ({ controls }) => controls.refresh(),
  internal: (ctx) => [controlsRoutes(ctx)],
});
