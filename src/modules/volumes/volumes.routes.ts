import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { VolumesService } from './volumes.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  AttachVolumeBody,
  CloneVolumeBody,
  ComputeVolumesParams,
  CreateVolumeBody,
  ResizeVolumeBody,
  UpdateVolumeBody,
  VolumePage,
  VolumeParams,
  VolumeSchema,
} from './volumes.schemas.js';

type Ctx = RouteContext<{ volumes: VolumesService }>;

const tags = ['Volumes'];
const read = { scopes: ['volumes:read_only'] };
const write = { scopes: ['volumes:read_write'] };
const writeBoth = { scopes: ['volumes:read_write', 'computes:read_write'] };

export function volumesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.volumes;
  return async (app) => {
    app.get(
      '/volumes',
      {
        schema: {
          tags,
          summary: 'Volumes List',
          querystring: PageQuery,
          response: { 200: VolumePage },
        },
        config: { operationId: 'getVolumes', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/volumes',
      {
        schema: {
          tags,
          summary: 'Volume Create',
          body: CreateVolumeBody,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'createVolume', ...write, rateLimit: 'volume_create' },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/volumes/:volumeId',
      {
        // The reference declares page and page_size here too; they are accepted and ignored.
        schema: {
          tags,
          summary: 'Volume View',
          params: VolumeParams,
          querystring: PageQuery,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'getVolume', ...read },
      },
      (req) => svc.get(principal(req), req.params.volumeId),
    );
    app.put(
      '/volumes/:volumeId',
      {
        schema: {
          tags,
          summary: 'Volume Update',
          params: VolumeParams,
          body: UpdateVolumeBody,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'updateVolume', ...write },
      },
      (req) => svc.update(principal(req), req.params.volumeId, req.body),
    );
    app.delete(
      '/volumes/:volumeId',
      {
        schema: { tags, summary: 'Volume Delete', params: VolumeParams, response: { 200: Empty } },
        config: { operationId: 'deleteVolume', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.volumeId);
        return {};
      },
    );
    app.post(
      '/volumes/:volumeId/attach',
      {
        schema: {
          tags,
          summary: 'Volume Attach',
          params: VolumeParams,
          body: AttachVolumeBody,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'attachVolume', ...writeBoth },
      },
      (req) => svc.attach(principal(req), req.params.volumeId, req.body),
    );
    app.post(
      '/volumes/:volumeId/detach',
      {
        schema: { tags, summary: 'Volume Detach', params: VolumeParams, response: { 200: Empty } },
        config: { operationId: 'detachVolume', ...writeBoth },
      },
      async (req) => {
        await svc.detach(principal(req), req.params.volumeId);
        return {};
      },
    );
    app.post(
      '/volumes/:volumeId/clone',
      {
        schema: {
          tags,
          summary: 'Volume Clone',
          params: VolumeParams,
          body: CloneVolumeBody,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'cloneVolume', ...write },
      },
      (req) => svc.clone(principal(req), req.params.volumeId, req.body.label),
    );
    app.post(
      '/volumes/:volumeId/resize',
      {
        schema: {
          tags,
          summary: 'Volume Resize',
          params: VolumeParams,
          body: ResizeVolumeBody,
          response: { 200: VolumeSchema },
        },
        config: { operationId: 'resizeVolume', ...write },
      },
      (req) => svc.resize(principal(req), req.params.volumeId, req.body.size),
    );
    app.get(
      '/compute/instances/:computeId/volumes',
      {
        schema: {
          tags: ['Compute Instances'],
          summary: "Compute's Volumes List",
          params: ComputeVolumesParams,
          querystring: PageQuery,
          response: { 200: VolumePage },
        },
        config: { operationId: 'getComputeVolumes', scopes: ['computes:read_only'], paged: true },
      },
      (req) => svc.listForInstance(principal(req), req.params.computeId, req.query, xFilter(req)),
    );
  };
}
