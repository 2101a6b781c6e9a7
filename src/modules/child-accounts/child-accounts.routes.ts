import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { ChildAccountsService } from './child-accounts.service.js';
import { principal } from '../../http/principal.js';
import { DateTime, Empty, PageOf, PageQuery } from '../../http/schemas/common.js';
import { AccountSchema } from '../account/account.schemas.js';

type Ctx = RouteContext<{ childAccounts: ChildAccountsService }>;

const tags = ['Account'];
const EuuidParams = Type.Object({ euuid: Type.String() });
const ProxyTokenSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  scopes: Type.String(),
  token: Type.String({ description: 'Shown once.' }),
  created: DateTime(),
  expiry: DateTime({ description: '15 minutes after created' }),
});

/** `/account/child-accounts` (later revisions than the reference; the recorded traffic). */
export function childAccountsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.childAccounts;
  return async (app) => {
    app.get(
      '/account/child-accounts',
      {
        schema: {
          tags,
          summary: 'Child Accounts List',
          querystring: PageQuery,
          response: { 200: PageOf(AccountSchema) },
        },
        config: {
          operationId: 'getChildAccounts',
          scopes: ['child_account:read_only'],
          paged: true,
        },
      },
      (req) => svc.list(principal(req), req.query),
    );
    app.get(
      '/account/child-accounts/:euuid',
      {
        schema: {
          tags,
          summary: 'Child Account View',
          params: EuuidParams,
          response: { 200: AccountSchema },
        },
        config: { operationId: 'getChildAccount', scopes: ['child_account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.euuid),
    );
    app.post(
      '/account/child-accounts/:euuid/token',
      {
        schema: {
          tags,
          summary: 'Proxy User Token Create',
          params: EuuidParams,
          response: { 200: ProxyTokenSchema },
        },
        config: { operationId: 'postChildAccountToken', scopes: ['child_account:read_write'] },
      },
      (req) => svc.token(principal(req), req.params.euuid),
    );
  };
}

const LinkBody = Type.Object({ parent_euuid: Type.String(), child_euuid: Type.String() });

/**
 * The operator's side (operator token, hidden from the API document): `POST
 * /_stratus/child-accounts` makes an account the child of another (the real service's
 * provisioning), `DELETE /_stratus/child-accounts/{euuid}` ends the link.
 */
export function childAccountControlRoutes(ctx: Ctx): FastifyPluginAsync {
  const svc = ctx.services.childAccounts;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };
    app.post(
      '/_stratus/child-accounts',
      {
        schema: {
          ...hide,
          operationId: 'stratusLinkChildAccount',
          summary: 'Make an account the child of another',
          body: LinkBody,
        },
      },
      (req) => svc.link(req.body.parent_euuid, req.body.child_euuid),
    );
    app.delete(
      '/_stratus/child-accounts/:euuid',
      {
        schema: {
          ...hide,
          operationId: 'stratusUnlinkChildAccount',
          summary: 'Make a child account stand alone again',
          params: EuuidParams,
          response: { 200: Empty },
        },
      },
      async (req) => {
        await svc.unlink(req.params.euuid);
        return {};
      },
    );
  };
}
