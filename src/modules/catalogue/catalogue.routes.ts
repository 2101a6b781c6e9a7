import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { CatalogueService } from './catalogue.service.js';
import { xFilter } from '../../http/principal.js';
import { PageQuery } from '../../http/schemas/common.js';
import {
  ImagePage,
  ImageSchema,
  KernelPage,
  KernelSchema,
  RegionAvailabilityPage,
  RegionAvailabilitySchema,
  RegionPage,
  RegionSchema,
  TypePage,
  TypeSchema,
} from './catalogue.schemas.js';

type Ctx = RouteContext<{ catalogue: CatalogueService }>;

const RegionParams = Type.Object({ regionId: Type.String() });
const TypeParams = Type.Object({ typeId: Type.String() });
const KernelParams = Type.Object({ kernelId: Type.String() });
const ImageParams = Type.Object({ imageId: Type.String() });
// Ids such as `compute/debian12` hold a slash; clients send it encoded (%2F) or raw.
const SplitIdParams = Type.Object({ vendor: Type.String(), name: Type.String() });

export function catalogueRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.catalogue;
  return async (app) => {
    const regions = ['Regions'];
    app.get(
      '/regions',
      {
        schema: {
          tags: regions,
          summary: 'Regions List',
          querystring: PageQuery,
          response: { 200: RegionPage },
        },
        config: { operationId: 'getRegions', auth: 'public', paged: true },
      },
      (req) => svc.listRegions(req.query, xFilter(req)),
    );
    app.get(
      '/regions/availability',
      {
        schema: {
          tags: regions,
          summary: 'Regions Availability List',
          querystring: PageQuery,
          response: { 200: RegionAvailabilityPage },
        },
        config: { operationId: 'getRegionsAvailability', auth: 'public', paged: true },
      },
      (req) => svc.listAvailability(req.query, xFilter(req)),
    );
    app.get(
      '/regions/:regionId',
      {
        schema: {
          tags: regions,
          summary: 'Region View',
          params: RegionParams,
          response: { 200: RegionSchema },
        },
        config: { operationId: 'getRegion', auth: 'public' },
      },
      (req) => svc.getRegion(req.params.regionId),
    );
    app.get(
      '/regions/:regionId/availability',
      {
        schema: {
          tags: regions,
          summary: 'Region Availability View',
          params: RegionParams,
          response: { 200: Type.Array(RegionAvailabilitySchema) },
        },
        config: { operationId: 'getRegionAvailability', auth: 'public' },
      },
      (req) => svc.regionAvailability(req.params.regionId),
    );

    app.get(
      '/compute/types',
      {
        schema: {
          tags: ['Compute Types'],
          summary: 'Types List',
          querystring: PageQuery,
          response: { 200: TypePage },
        },
        config: { operationId: 'getComputeTypes', auth: 'public', paged: true },
      },
      (req) => svc.listTypes(req.query, xFilter(req)),
    );
    app.get(
      '/compute/types/:typeId',
      {
        schema: {
          tags: ['Compute Types'],
          summary: 'Type View',
          params: TypeParams,
          response: { 200: TypeSchema },
        },
        config: { operationId: 'getComputeType', auth: 'public' },
      },
      (req) => svc.getType(req.params.typeId),
    );

    const kernels = ['Compute Instances'];
    app.get(
      '/compute/kernels',
      {
        schema: {
          tags: kernels,
          summary: 'Kernels List',
          querystring: PageQuery,
          response: { 200: KernelPage },
        },
        config: { operationId: 'getKernels', auth: 'public', paged: true },
      },
      (req) => svc.listKernels(req.query, xFilter(req)),
    );
    app.get(
      '/compute/kernels/:kernelId',
      {
        schema: {
          tags: kernels,
          summary: 'Kernel View',
          params: KernelParams,
          response: { 200: KernelSchema },
        },
        config: { operationId: 'getKernel', auth: 'public' },
      },
      (req) => svc.getKernel(req.params.kernelId),
    );
    app.get(
      '/compute/kernels/:vendor/:name',
      {
        schema: { hide: true, params: SplitIdParams, response: { 200: KernelSchema } },
        config: { operationId: 'getKernel', auth: 'public' },
      },
      (req) => svc.getKernel(`${req.params.vendor}/${req.params.name}`),
    );

    const images = ['Images'];
    app.get(
      '/images',
      {
        schema: {
          tags: images,
          summary: 'Images List',
          querystring: PageQuery,
          response: { 200: ImagePage },
        },
        config: { operationId: 'getImages', auth: 'public', paged: true, rateLimit: 'images_list' },
      },
      (req) => svc.listImages(req.principal, req.query, xFilter(req)),
    );
    app.get(
      '/images/:imageId',
      {
        schema: {
          tags: images,
          summary: 'Image View',
          params: ImageParams,
          response: { 200: ImageSchema },
        },
        config: { operationId: 'getImage', auth: 'public', acceptedScopes: ['images:read_only'] },
      },
      (req) => svc.getImage(req.principal, req.params.imageId),
    );
    app.get(
      '/images/:vendor/:name',
      {
        schema: { hide: true, params: SplitIdParams, response: { 200: ImageSchema } },
        config: { operationId: 'getImage', auth: 'public', acceptedScopes: ['images:read_only'] },
      },
      (req) => svc.getImage(req.principal, `${req.params.vendor}/${req.params.name}`),
    );
  };
}
