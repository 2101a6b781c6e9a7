import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteContext } from '../../platform/area.js';
import type { ClientsService } from './clients.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  ClientParams,
  OAuthClientCreateBody,
  OAuthClientPage,
  OAuthClientSchema,
  OAuthClientUpdateBody,
} from './clients.schemas.js';
import { THUMBNAIL_MAX_BYTES } from './thumbnail.js';

type Ctx = RouteContext<{ clients: ClientsService }>;

const tags = ['Account'];
const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/** /account/oauth-clients: registrations, secrets and thumbnails. */
export function clientsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.clients;
  return async (app) => {
    // Thumbnails arrive as the image itself; its bytes decide whether it is one (the service).
    app.addContentTypeParser(
      /^image\/[a-z0-9.+-]+$/i,
      { parseAs: 'buffer', bodyLimit: THUMBNAIL_MAX_BYTES },
      (_req, body, done) => done(null, body),
    );
    app.get(
      '/account/oauth-clients',
      {
        schema: {
          tags,
          summary: 'OAuth Clients List',
          querystring: PageQuery,
          response: { 200: OAuthClientPage },
        },
        config: { operationId: 'getClients', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/account/oauth-clients',
      {
        schema: {
          tags,
          summary: 'OAuth Client Create',
          body: OAuthClientCreateBody,
          response: { 200: OAuthClientSchema },
        },
        config: { operationId: 'createClient', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/account/oauth-clients/:clientId',
      {
        schema: {
          tags,
          summary: 'OAuth Client View',
          params: ClientParams,
          response: { 200: OAuthClientSchema },
        },
        config: { operationId: 'getClient', ...read },
      },
      (req) => svc.get(principal(req), req.params.clientId),
    );
    app.put(
      '/account/oauth-clients/:clientId',
      {
        schema: {
          tags,
          summary: 'OAuth Client Update',
          params: ClientParams,
          body: OAuthClientUpdateBody,
          response: { 200: OAuthClientSchema },
        },
        config: { operationId: 'updateClient', ...write },
      },
      (req) => svc.update(principal(req), req.params.clientId, req.body),
    );
    app.delete(
      '/account/oauth-clients/:clientId',
      {
        schema: {
          tags,
          summary: 'OAuth Client Delete',
          params: ClientParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteClient', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.clientId);
        return {};
      },
    );
    // `reset_secret` is the spelling the Python SDK calls; both reach the same operation.
    for (const [path, hide] of [
      ['/account/oauth-clients/:clientId/reset-secret', false],
      ['/account/oauth-clients/:clientId/reset_secret', true],
    ] as const) {
      app.post(
        path,
        {
          schema: {
            tags,
            summary: 'OAuth Client Secret Reset',
            ...(hide ? { hide: true } : {}),
            params: ClientParams,
            response: { 200: OAuthClientSchema },
          },
          config: { operationId: 'resetClientSecret', ...write },
        },
        (req) => svc.resetSecret(principal(req), req.params.clientId),
      );
    }
    app.get(
      '/account/oauth-clients/:clientId/thumbnail',
      {
        schema: {
          tags,
          summary: 'OAuth Client Thumbnail View',
          params: ClientParams,
          response: { 200: Type.String({ format: 'binary' }) },
        },
        config: { operationId: 'getClientThumbnail', auth: 'public' },
      },
      async (req, reply) => {
        const t = await svc.thumbnail(req.params.clientId);
        return reply
          .type(t.type)
          .header('x-content-type-options', 'nosniff')
          .send(t.bytes as never);
      },
    );
    app.put(
      '/account/oauth-clients/:clientId/thumbnail',
      {
        bodyLimit: THUMBNAIL_MAX_BYTES,
        // The body is the image's bytes: documented as binary, checked by the service.
        validatorCompiler: ({ httpPart }) =>
          httpPart === 'params'
            ? (v: unknown) => typeof (v as { clientId?: unknown }).clientId === 'string'
            : () => true,
        schema: {
          tags,
          summary: 'OAuth Client Thumbnail Update',
          consumes: ['image/png', 'image/jpeg', 'image/gif'],
          body: Type.String({ format: 'binary' }),
          params: ClientParams,
          response: { 200: Empty },
        },
        config: { operationId: 'setClientThumbnail', ...write },
      },
      async (req) => {
        await svc.setThumbnail(principal(req), req.params.clientId, req.body);
        return {};
      },
    );
  };
}
