import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { TokensService } from './tokens.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  TokenCreateBody,
  TokenPage,
  TokenParams,
  TokenSchema,
  TokenUpdateBody,
} from './tokens.schemas.js';

type Ctx = RouteContext<{ tokens: TokensService }>;

const tags = ['Profile'];

/** /profile/tokens: the caller's personal access tokens. */
export function tokensRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.tokens;
  return async (app) => {
    app.get(
      '/profile/tokens',
      {
        schema: {
          tags,
          summary: 'Personal Access Tokens List',
          querystring: PageQuery,
          response: { 200: TokenPage },
        },
        config: {
          operationId: 'getPersonalAccessTokens',
          scopes: ['account:read_only'],
          paged: true,
        },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/profile/tokens',
      {
        schema: {
          tags,
          summary: 'Personal Access Token Create',
          body: TokenCreateBody,
          response: { 200: TokenSchema },
        },
        config: { operationId: 'createPersonalAccessToken', scopes: ['account:read_write'] },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/profile/tokens/:tokenId',
      {
        schema: {
          tags,
          summary: 'Personal Access Token View',
          params: TokenParams,
          response: { 200: TokenSchema },
        },
        config: { operationId: 'getPersonalAccessToken', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.tokenId),
    );
    app.put(
      '/profile/tokens/:tokenId',
      {
        schema: {
          tags,
          summary: 'Personal Access Token Update',
          params: TokenParams,
          body: TokenUpdateBody,
          response: { 200: TokenSchema },
        },
        config: { operationId: 'updatePersonalAccessToken', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.params.tokenId, req.body),
    );
    app.delete(
      '/profile/tokens/:tokenId',
      {
        schema: {
          tags,
          summary: 'Personal Access Token Revoke',
          params: TokenParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deletePersonalAccessToken', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.tokenId);
        return {};
      },
    );
  };
}
