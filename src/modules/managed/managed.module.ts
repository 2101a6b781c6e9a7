import type { Database } from '../../db/database.js';
import { defineArea } from '../../platform/area.js';
import type { StateHook } from '../../platform/state-hook.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { supportModule } from '../support/support.module.js';
import { ManagedContactsService } from './contacts.service.js';
import { ManagedCredentialsService } from './credentials.service.js';
import { ManagedAccountService } from './managed.account.js';
import { CHECKS_SLOT, managedCheckJob } from './managed.checks.js';
import { managedEntities } from './managed.entities.js';
import { managedControlRoutes, managedRoutes } from './managed.routes.js';
import { ManagedServicesService } from './services.service.js';
import {
  ManagedComputeSettingsService,
  ManagedIssuesService,
  ManagedStatsService,
} from './views.service.js';

/**
 * A reset of one account (and a cancelled account) keeps the account's row: Managed goes back
 * off with the rest of its state.
 */
const managedStateHook: StateHook = {
  name: 'managed',
  async onReset(tx: Database, scope) {
    if (scope.accountId === undefined) return;
    await tx.db
      .updateTable('accounts')
      .set({ managed: 0 })
      .where('id', '=', scope.accountId)
      .execute();
  },
};

/**
 * Managed: enabled for the whole account; contacts, sealed credentials and the account's SSH
 * key, monitored services (checked by a recurring job that opens issues with support tickets),
 * per-instance SSH settings, and the account's combined statistics.
 */
export const managedModule = defineArea({
  name: 'managed',
  needs: [catalogueModule, supportModule],
  tables: [
    'managed_contacts',
    'managed_credentials',
    'managed_services',
    'managed_issues',
    'managed_compute_settings',
    'managed_keys',
  ],
  entities: managedEntities,
  jobs: [managedCheckJob],
  services: ({ db, clock, events, queue, sealer, config }, { catalogue: { catalogue } }) => {
    // The check job reads it beside the connection (jobs are built before the areas).
    db.slot(CHECKS_SLOT, () => ({ network: config.managedChecks })).network = config.managedChecks;
    return {
      account: new ManagedAccountService({ db, clock, events, queue }),
      contacts: new ManagedContactsService({ db, clock }),
      credentials: new ManagedCredentialsService({ db, clock, sealer }),
      services: new ManagedServicesService({ db, clock, events, queue, catalogue }),
      issues: new ManagedIssuesService({ db }),
      computeSettings: new ManagedComputeSettingsService({ db }),
      stats: new ManagedStatsService({ db, clock, catalogue }),
    };
  },
  api: (ctx) => [managedRoutes(ctx)],
  internal: (ctx) => [managedControlRoutes(ctx)],
  stateHooks: () => [managedStateHook],
});
