import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { SshKeysService } from './sshkeys.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  SshKeyCreateBody,
  SshKeyPage,
  SshKeyParams,
  SshKeySchema,
  SshKeyUpdateBody,
} from './sshkeys.schemas.js';

type Ctx = RouteContext<{ sshKeys: SshKeysService }>;

const tags = ['Profile'];

/** /profile/sshkeys: the caller's SSH keys. */
export function sshKeysRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.sshKeys;
  return async (app) => {
    app.get(
      '/profile/sshkeys',
      {
        schema: {
          tags,
          summary: 'SSH Keys List',
          querystring: PageQuery,
          response: { 200: SshKeyPage },
        },
        config: {
          operationId: 'getSSHKeys',
          scopes: ['account:read_only'],
          paged: true,
        },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/profile/sshkeys',
      {
        schema: {
          tags,
          summary: 'SSH Key Add',
          body: SshKeyCreateBody,
          response: { 200: SshKeySchema },
        },
        config: { operationId: 'addSSHKey', scopes: ['account:read_write'] },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/profile/sshkeys/:sshKeyId',
      {
        schema: {
          tags,
          summary: 'SSH Key View',
          params: SshKeyParams,
          response: { 200: SshKeySchema },
        },
        config: { operationId: 'getSSHKey', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.sshKeyId),
    );
    app.put(
      '/profile/sshkeys/:sshKeyId',
      {
        schema: {
          tags,
          summary: 'SSH Key Update',
          params: SshKeyParams,
          body: SshKeyUpdateBody,
          response: { 200: SshKeySchema },
        },
        config: { operationId: 'updateSSHKey', scopes: ['account:read_write'] },
      },
      (req) => svc.update(principal(req), req.params.sshKeyId, req.body),
    );
    app.delete(
      '/profile/sshkeys/:sshKeyId',
      {
        schema: {
          tags,
          summary: 'SSH Key Delete',
          params: SshKeyParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteSSHKey', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.sshKeyId);
        return {};
      },
    );
  };
}
