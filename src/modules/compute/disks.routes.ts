import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { DisksService } from './disks.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import { ComputeParams } from './compute.schemas.js';
import {
  CreateDiskBody,
  DiskPage,
  DiskParams,
  DiskPasswordBody,
  DiskSchema,
  ResizeDiskBody,
  UpdateDiskBody,
} from './disks.schemas.js';

type Ctx = RouteContext<{ disks: DisksService }>;

const tags = ['Compute Instances'];
const read = { scopes: ['computes:read_only'] };
const write = { scopes: ['computes:read_write'] };
const base = '/compute/instances/:computeId/disks';

export function disksRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.disks;
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: 'Disks List',
          params: ComputeParams,
          querystring: PageQuery,
          response: { 200: DiskPage },
        },
        config: { operationId: 'getComputeDisks', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.params.computeId, req.query, xFilter(req)),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: 'Disk Create',
          params: ComputeParams,
          body: CreateDiskBody,
          response: { 200: DiskSchema },
        },
        config: { operationId: 'addComputeDisk', ...write },
      },
      (req) => svc.create(principal(req), req.params.computeId, req.body),
    );
    app.get(
      `${base}/:diskId`,
      {
        schema: { tags, summary: 'Disk View', params: DiskParams, response: { 200: DiskSchema } },
        config: { operationId: 'getComputeDisk', ...read },
      },
      (req) => svc.get(principal(req), req.params.computeId, req.params.diskId),
    );
    app.put(
      `${base}/:diskId`,
      {
        schema: {
          tags,
          summary: 'Disk Update',
          params: DiskParams,
          body: UpdateDiskBody,
          response: { 200: DiskSchema },
        },
        config: { operationId: 'updateDisk', ...write },
      },
      (req) => svc.update(principal(req), req.params.computeId, req.params.diskId, req.body.label),
    );
    app.delete(
      `${base}/:diskId`,
      {
        schema: { tags, summary: 'Disk Delete', params: DiskParams, response: { 200: Empty } },
        config: { operationId: 'deleteDisk', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.computeId, req.params.diskId);
        return {};
      },
    );
    app.post(
      `${base}/:diskId/clone`,
      {
        schema: { tags, summary: 'Disk Clone', params: DiskParams, response: { 200: DiskSchema } },
        config: { operationId: 'cloneComputeDisk', ...write },
      },
      (req) => svc.clone(principal(req), req.params.computeId, req.params.diskId),
    );
    app.post(
      `${base}/:diskId/password`,
      {
        schema: {
          tags,
          summary: 'Disk Root Password Reset',
          params: DiskParams,
          body: DiskPasswordBody,
          response: { 200: Empty },
        },
        config: { operationId: 'resetDiskPassword', ...write },
      },
      async (req) => {
        await svc.resetPassword(
          principal(req),
          req.params.computeId,
          req.params.diskId,
          req.body.password,
        );
        return {};
      },
    );
    app.post(
      `${base}/:diskId/resize`,
      {
        schema: {
          tags,
          summary: 'Disk Resize',
          params: DiskParams,
          body: ResizeDiskBody,
          response: { 200: Empty },
        },
        config: { operationId: 'resizeDisk', ...write },
      },
      async (req) => {
        await svc.resize(principal(req), req.params.computeId, req.params.diskId, req.body.size);
        return {};
      },
    );
  };
}
