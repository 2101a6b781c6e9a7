import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import type { RouteContext } from '../../platform/area.js';
import { CreateLockBody, LockPage, LockParams, LockSchema } from './locks.schemas.js';
import type { LocksService } from './locks.service.js';

type Ctx = RouteContext<{ locks: LocksService }>;

const tags = ['Locks'];

/** `/locks`: resource locks (the real service serves them under v4beta; Stratus under both). */
export function locksRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.locks;
  return async (app) => {
    app.get(
      '/locks',
      {
        schema: {
          tags,
          summary: 'Resource Locks List',
          querystring: PageQuery,
          response: { 200: LockPage },
        },
        config: { operationId: 'getResourceLocks', scopes: ['account:read_only'], paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/locks',
      {
        schema: {
          tags,
          summary: 'Resource Lock Create',
          body: CreateLockBody,
          response: { 200: LockSchema },
        },
        config: { operationId: 'postResourceLock', scopes: ['account:read_write'] },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/locks/:lockId',
      {
        schema: {
          tags,
          summary: 'Resource Lock View',
          params: LockParams,
          response: { 200: LockSchema },
        },
        config: { operationId: 'getResourceLock', scopes: ['account:read_only'] },
      },
      (req) => svc.get(principal(req), req.params.lockId),
    );
    app.delete(
      '/locks/:lockId',
      {
        schema: {
          tags,
          summary: 'Resource Lock Delete',
          params: LockParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteResourceLock', scopes: ['account:read_write'] },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.lockId);
        return {};
      },
    );
  };
}
