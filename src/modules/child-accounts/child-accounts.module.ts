import { defineArea } from '../../platform/area.js';
import { billingModule } from '../billing/billing.module.js';
import { childAccountControlRoutes, childAccountsRoutes } from './child-accounts.routes.js';
import { ChildAccountsService } from './child-accounts.service.js';

/** Parent and child accounts: the child's proxy user, and short-lived tokens of it. */
export const childAccountsModule = defineArea({
  name: 'childAccounts',
  needs: [billingModule],
  tables: ['child_accounts'],
  services: ({ db, clock }, { billing }) => ({
    childAccounts: new ChildAccountsService({
      db,
      clock,
      uninvoiced: (tx, id) => billing.billing.uninvoicedCents(tx, id),
    }),
  }),
  api: (ctx) => [childAccountsRoutes(ctx)],
  internal: (ctx) => [childAccountControlRoutes(ctx)],
});
