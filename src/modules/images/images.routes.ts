import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { ImagesService } from './images.service.js';
import { principal } from '../../http/principal.js';
import { publicOrigin } from '../../http/public-url.js';
import { Empty } from '../../http/schemas/common.js';
import { ImageSchema } from '../catalogue/catalogue.schemas.js';
import {
  CreateImageBody,
  ImageParams,
  ReplicateImageBody,
  SplitImageParams,
  UpdateImageBody,
  UploadImageBody,
  UploadImageResponse,
  UploadParams,
} from './images.schemas.js';
import { UPLOAD_PATH } from './images.repository.js';

type Ctx = RouteContext<{ images: ImagesService }>;

const tags = ['Images'];
const write = { scopes: ['images:read_write'] };

/** Private images: create from a disk, upload, update, delete (lists and views: catalogue). */
export function imagesRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.images;
  return async (app) => {
    app.post(
      '/images',
      {
        schema: {
          tags,
          summary: 'Image Create',
          body: CreateImageBody,
          response: { 200: ImageSchema },
        },
        config: { operationId: 'createImage', scopes: ['images:read_write', 'computes:read_only'] },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.post(
      '/images/upload',
      {
        schema: {
          tags,
          summary: 'Image Upload',
          body: UploadImageBody,
          response: { 200: UploadImageResponse },
        },
        config: { operationId: 'uploadImage', ...write },
      },
      (req) => svc.upload(principal(req), req.body, publicOrigin(ctx.config, req)),
    );
    const update = {
      tags,
      summary: 'Image Update',
      body: UpdateImageBody,
      response: { 200: ImageSchema },
    };
    app.put(
      '/images/:imageId',
      {
        schema: { ...update, params: ImageParams },
        config: { operationId: 'updateImage', ...write },
      },
      (req) => svc.update(principal(req), req.params.imageId, req.body),
    );
    app.put(
      '/images/:vendor/:name',
      {
        schema: { ...update, hide: true, params: SplitImageParams },
        config: { operationId: 'updateImage', ...write },
      },
      (req) => svc.update(principal(req), `${req.params.vendor}/${req.params.name}`, req.body),
    );
    const replicate = {
      tags,
      summary: 'Image Replicate',
      description:
        'Makes the regions of a private image exactly the given list: new regions get a replica ' +
        '(`pending replication`, `replicating`, then `available`), replicas in regions not ' +
        'listed are removed (`pending deletion`). At least one available replica must be kept.',
      body: ReplicateImageBody,
      response: { 200: ImageSchema },
    };
    app.post(
      '/images/:imageId/regions',
      {
        schema: { ...replicate, params: ImageParams },
        config: { operationId: 'replicateImage', ...write },
      },
      (req) => svc.replicate(principal(req), req.params.imageId, req.body),
    );
    app.post(
      '/images/:vendor/:name/regions',
      {
        schema: { ...replicate, hide: true, params: SplitImageParams },
        config: { operationId: 'replicateImage', ...write },
      },
      (req) => svc.replicate(principal(req), `${req.params.vendor}/${req.params.name}`, req.body),
    );
    const del = { tags, summary: 'Image Delete', response: { 200: Empty } };
    app.delete(
      '/images/:imageId',
      {
        schema: { ...del, params: ImageParams },
        config: { operationId: 'deleteImage', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.imageId);
        return {};
      },
    );
    app.delete(
      '/images/:vendor/:name',
      {
        schema: { ...del, hide: true, params: SplitImageParams },
        config: { operationId: 'deleteImage', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), `${req.params.vendor}/${req.params.name}`);
        return {};
      },
    );
  };
}

/**
 * The upload URLs (`PUT /_stratus/image-uploads/<secret>`), outside `/v4`: the URL itself is the
 * credential, as a pre-signed URL is. The body is streamed, whatever its Content-Type.
 */
export function imageUploadRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.images;
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    app.put(
      `${UPLOAD_PATH}/:token`,
      // The URL's secret is the credential, not the operator token.
      { schema: { hide: true, params: UploadParams }, config: { operatorToken: false } },
      async (req, reply) => {
        const body = (req.body ?? req.raw) as Readable;
        await svc.receive(req.params.token, body);
        return reply.status(200).send({});
      },
    );
  };
}
