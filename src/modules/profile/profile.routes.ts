import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteContext } from '../../platform/area.js';
import type { ProfileService } from './profile.service.js';
import type { TokensService } from './tokens.service.js';
import type { SshKeysService } from './sshkeys.service.js';
import type { GrantsService } from '../account/grants.service.js';
import { principal } from '../../http/principal.js';
import { GrantsSchema } from '../account/grants.schemas.js';
import { ProfileSchema, ProfileUpdateBody } from './profile.schemas.js';
import { sshKeysRoutes } from './sshkeys.routes.js';
import { tokensRoutes } from './tokens.routes.js';

type Ctx = RouteContext<
  { profile: ProfileService; tokens: TokensService; sshKeys: SshKeysService },
  { account: { grants: GrantsService } }
>;

const tags = ['Profile'];

/** /profile, /profile/grants, and the tokens and SSH keys sub-resources. */
export function profileRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.profile;
  return async (app) => {
    app.get(
      '/profile',
      {
        schema: { tags, summary: 'Profile View', response: { 200: ProfileSchema } },
        config: { operationId: 'getProfile', auth: 'token' },
      },
      (req) => svc.get(principal(req)),
    );
    app.put(
      '/profile',
      {
        schema: {
          tags,
          summary: 'Profile Update',
          body: ProfileUpdateBody,
          response: { 200: ProfileSchema },
        },
        config: { operationId: 'updateProfile', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.body),
    );
    app.get(
      '/profile/grants',
      {
        schema: {
          tags,
          summary: 'Grants List',
          response: {
            200: GrantsSchema,
            204: Type.Null({ description: 'The caller is unrestricted: no grants, no body.' }),
          },
        },
        config: { operationId: 'getProfileGrants', auth: 'token' },
      },
      async (req, reply) => {
        const grants = await ctx.areas.account.grants.ofCaller(principal(req));
        return grants ?? reply.status(204).send(null);
      },
    );
    await app.register(tokensRoutes(ctx));
    await app.register(sshKeysRoutes(ctx));
  };
}
