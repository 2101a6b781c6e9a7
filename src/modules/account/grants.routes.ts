import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { GrantsUpdate } from '../../auth/grants.js';
import type { RouteContext } from '../../platform/area.js';
import type { GrantsService } from './grants.service.js';
import { principal } from '../../http/principal.js';
import { GrantsSchema, GrantsUpdateBody } from './grants.schemas.js';
import { UsernameParams } from './users.schemas.js';

type Ctx = RouteContext<{ grants: GrantsService }>;

const tags = ['Account'];
const NoContent = Type.Null({ description: 'The user is unrestricted: no grants, no body.' });

/** /account/users/{username}/grants. */
export function grantsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.grants;
  return async (app) => {
    app.get(
      '/account/users/:username/grants',
      {
        schema: {
          tags,
          summary: "User's Grants View",
          params: UsernameParams,
          response: { 200: GrantsSchema, 204: NoContent },
        },
        config: { operationId: 'getUserGrants', scopes: ['account:read_only'] },
      },
      async (req, reply) => {
        const grants = await svc.ofUser(principal(req), req.params.username);
        return grants ?? reply.status(204).send(null);
      },
    );
    app.put(
      '/account/users/:username/grants',
      {
        schema: {
          tags,
          summary: "User's Grants Update",
          params: UsernameParams,
          body: GrantsUpdateBody,
          response: { 200: GrantsSchema },
        },
        config: { operationId: 'updateUserGrants', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.params.username, req.body as GrantsUpdate),
    );
  };
}
