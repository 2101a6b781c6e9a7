import { defineArea } from '../../platform/area.js';
import { billingModule } from '../billing/billing.module.js';
import { accountRoutes } from './account.routes.js';
import { AccountService } from './account.service.js';
import { GrantsService } from './grants.service.js';
import { UsersService } from './users.service.js';

/** The account and its settings, users and their grants. */
export const accountModule = defineArea({
  name: 'account',
  needs: [billingModule],
  tables: [],
  services: ({ db, clock, events, entities }, { billing }) => ({
    account: new AccountService(db, events, (tx, id) => billing.billing.uninvoicedCents(tx, id)),
    users: new UsersService(db, clock, events),
    grants: new GrantsService(db, entities),
  }),
  api: (ctx) => [accountRoutes(ctx)],
});
