import type { Database } from '../../db/database.js';
import { defineArea } from '../../platform/area.js';
import type { StateHook } from '../../platform/state-hook.js';
import { longviewEntities } from './longview.entities.js';
import { longviewRoutes } from './longview.routes.js';
import { LongviewService } from './longview.service.js';

/**
 * A reset of one account (and a cancelled account) deletes its billing periods with its rows but
 * keeps the account's row: its plan goes back to Longview Free with them.
 */
const planStateHook: StateHook = {
  name: 'longview-plan',
  async onReset(tx: Database, scope) {
    if (scope.accountId === undefined) return;
    await tx.db
      .updateTable('accounts')
      .set({ longview_subscription: null })
      .where('id', '=', scope.accountId)
      .execute();
  },
};

/** Longview: clients (`longview` grants), the plan (billed), the public subscriptions. */
export const longviewModule = defineArea({
  name: 'longview',
  needs: [],
  tables: ['longview_clients'],
  entities: longviewEntities,
  services: ({ db, clock, events, sealer }) => ({
    longview: new LongviewService({ db, clock, events, sealer }),
  }),
  api: (ctx) => [longviewRoutes(ctx)],
  stateHooks: () => [planStateHook],
});
