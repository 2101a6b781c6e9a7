import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { InstancesService } from './instances.service.js';
import type { PowerService } from './power.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  BootBody,
  ComputePage,
  ComputeParams,
  ComputeSchema,
  CreateComputeBody,
  RebootBody,
  UpdateComputeBody,
} from './compute.schemas.js';

type Ctx = RouteContext<{ instances: InstancesService; power: PowerService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };

export function instancesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.instances;
  const power = ctx.services.power;
  return async (app) => {
    app.get(
      '/compute/instances',
      {
        schema: {
          tags,
          summary: 'Computes List',
          querystring: PageQuery,
          response: { 200: ComputePage },
        },
        config: { operationId: 'getComputeInstances', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/compute/instances',
      {
        schema: {
          tags,
          summary: 'Compute Create',
          body: CreateComputeBody,
          response: { 200: ComputeSchema },
        },
        config: { operationId: 'createComputeInstance', ...write, rateLimit: 'compute_create' },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/compute/instances/:computeId',
      {
        schema: {
          tags,
          summary: 'Compute View',
          params: ComputeParams,
          response: { 200: ComputeSchema },
        },
        config: { operationId: 'getComputeInstance', ...read },
      },
      (req) => svc.get(principal(req), req.params.computeId),
    );
    app.put(
      '/compute/instances/:computeId',
      {
        schema: {
          tags,
          summary: 'Compute Update',
          params: ComputeParams,
          body: UpdateComputeBody,
          response: { 200: ComputeSchema },
        },
        config: { operationId: 'updateComputeInstance', ...write },
      },
      (req) => svc.update(principal(req), req.params.computeId, req.body),
    );
    app.delete(
      '/compute/instances/:computeId',
      {
        schema: {
          tags,
          summary: 'Compute Delete',
          params: ComputeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteComputeInstance', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.computeId);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/boot',
      {
        schema: {
          tags,
          summary: 'Compute Boot',
          params: ComputeParams,
          body: BootBody,
          response: { 200: Empty },
        },
        config: { operationId: 'bootComputeInstance', ...write },
      },
      async (req) => {
        await power.boot(principal(req), req.params.computeId, req.body.config_id);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/reboot',
      {
        schema: {
          tags,
          summary: 'Compute Reboot',
          params: ComputeParams,
          body: RebootBody,
          response: { 200: Empty },
        },
        config: { operationId: 'rebootComputeInstance', ...write },
      },
      async (req) => {
        await power.reboot(principal(req), req.params.computeId, req.body.config_id);
        return {};
      },
    );
    app.post(
      '/compute/instances/:computeId/shutdown',
      {
        schema: {
          tags,
          summary: 'Compute Shut Down',
          params: ComputeParams,
          response: { 200: Empty },
        },
        config: { operationId: 'shutdownComputeInstance', ...write },
      },
      async (req) => {
        await power.shutdown(principal(req), req.params.computeId);
        return {};
      },
    );
  };
}
