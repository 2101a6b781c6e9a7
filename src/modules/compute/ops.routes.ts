import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { OpsService } from './ops.service.js';
import type { RebuildService } from './rebuild.service.js';
import type { CloneService } from './clone.service.js';
import type { MigrateService } from './migrate.service.js';
import { principal } from '../../http/principal.js';
import { Empty } from '../../http/schemas/common.js';
import { ComputeParams, ComputeSchema } from './compute.schemas.js';
import {
  CloneBody,
  MigrateBody,
  MutateBody,
  PasswordBody,
  RebuildBody,
  RescueBody,
  ResizeBody,
} from './ops.schemas.js';

type Ctx = RouteContext<{
  ops: OpsService;
  rebuild: RebuildService;
  clone: CloneService;
  migrate: MigrateService;
}>;

const tags = ['Compute Instances'];
const write = { scopes: ['computes:read_write'] };

/** Resize, mutate, migrate, rebuild, rescue, root password and clone. */
export function computeOpsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const ops = ctx.services.ops;
  const rebuild = ctx.services.rebuild;
  const clone = ctx.services.clone;
  const empty = { 200: Empty };
  return async (app) => {
    app.post(
      '/compute/instances/:computeId/resize',
      {
        schema: {
          tags,
          summary: 'Compute Resize',
          params: ComputeParams,
          body: ResizeBody,
          response: empty,
        },
        config: { operationId: 'resizeComputeInstance', ...write },
      },
      async (req) => {
        await ops.resize(principal(req), req.params.computeId, req.body);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/mutate',
      {
        schema: {
          tags,
          summary: 'Compute Upgrade',
          params: ComputeParams,
          body: MutateBody,
          response: empty,
        },
        config: { operationId: 'mutateComputeInstance', ...write },
      },
      async (req) => {
        await ops.mutate(principal(req), req.params.computeId, req.body.allow_auto_disk_resize);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/migrate',
      {
        schema: {
          tags,
          summary: 'Compute Migrate',
          params: ComputeParams,
          body: MigrateBody,
          response: empty,
        },
        config: { operationId: 'migrateComputeInstance', ...write },
      },
      async (req) => {
        await ctx.services.migrate.migrate(principal(req), req.params.computeId, req.body);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/rescue',
      {
        schema: {
          tags,
          summary: 'Compute Boot into Rescue Mode',
          params: ComputeParams,
          body: RescueBody,
          response: empty,
        },
        config: { operationId: 'rescueComputeInstance', ...write },
      },
      async (req) => {
        await ops.rescue(principal(req), req.params.computeId, req.body);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/password',
      {
        schema: {
          tags,
          summary: 'Compute Root Password Reset',
          params: ComputeParams,
          body: PasswordBody,
          response: empty,
        },
        config: { operationId: 'resetComputePassword', ...write },
      },
      async (req) => {
        await ops.resetPassword(principal(req), req.params.computeId, req.body.root_pass);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/rebuild',
      {
        schema: {
          tags,
          summary: 'Compute Rebuild',
          params: ComputeParams,
          body: RebuildBody,
          response: { 200: ComputeSchema },
        },
        config: { operationId: 'rebuildComputeInstance', ...write },
      },
      (req) => rebuild.rebuild(principal(req), req.params.computeId, req.body),
    );
    app.post(
      '/compute/instances/:computeId/clone',
      {
        schema: {
          tags,
          summary: 'Compute Clone',
          params: ComputeParams,
          body: CloneBody,
          response: { 200: ComputeSchema },
        },
        config: { operationId: 'cloneComputeInstance', ...write },
      },
      (req) => clone.clone(principal(req), req.params.computeId, req.body),
    );
  };
}
