import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { principal } from '../../http/principal.js';
import { ProfileSchema } from './profile.schemas.js';

const tags = ['Profile'];

export function profileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
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
  };
}
