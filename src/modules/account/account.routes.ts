import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { AccountService } from './account.service.js';
import type { UsersService } from './users.service.js';
import type { GrantsService } from './grants.service.js';
import { principal } from '../../http/principal.js';
import {
  AccountSchema,
  AccountSettingsSchema,
  AccountSettingsUpdateBody,
  AccountUpdateBody,
} from './account.schemas.js';
import { grantsRoutes } from './grants.routes.js';
import { usersRoutes } from './users.routes.js';

type Ctx = RouteContext<{ account: AccountService; users: UsersService; grants: GrantsService }>;

const tags = ['Account'];

/** /account and /account/settings. */
function accountSettingsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.account;
  return async (app) => {
    app.get(
      '/account',
      {
        schema: { tags, summary: 'Account View', response: { 200: AccountSchema } },
        config: { operationId: 'getAccount', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req)),
    );
    app.put(
      '/account',
      {
        schema: {
          tags,
          summary: 'Account Update',
          body: AccountUpdateBody,
          response: { 200: AccountSchema },
        },
        config: { operationId: 'updateAccount', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.body),
    );
    app.get(
      '/account/settings',
      {
        schema: {
          tags,
          summary: 'Account Settings View',
          response: { 200: AccountSettingsSchema },
        },
        config: { operationId: 'getAccountSettings', scopes: ['account:read_only'] },
      },
      (req) => svc.getSettings(principal(req)),
    );
    app.put(
      '/account/settings',
      {
        schema: {
          tags,
          summary: 'Account Settings Update',
          body: AccountSettingsUpdateBody,
          response: { 200: AccountSettingsSchema },
        },
        config: { operationId: 'updateAccountSettings', scopes: ['account:read_write'] },
      },
      (req) => svc.updateSettings(principal(req), req.body),
    );
  };
}

/** The account area: account, settings, users and their grants. */
export function accountRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(accountSettingsRoutes(ctx));
    await app.register(usersRoutes(ctx));
    await app.register(grantsRoutes(ctx));
  };
}
