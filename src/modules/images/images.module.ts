import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { imageBlobsStateHook } from './images.blobs.js';
import { imageEntities } from './images.entities.js';
import { imageJobs } from './images.jobs.js';
import { imagesRoutes, imageUploadRoutes } from './images.routes.js';
import { ImagesService } from './images.service.js';

/** Private images: captured from a disk (a job) or uploaded; their bytes in the blob store. */
export const imagesModule = defineArea({
  name: 'images',
  needs: [catalogueModule],
  tables: ['private_images', 'image_regions'],
  entities: imageEntities,
  jobs: imageJobs,
  services: ({ db, clock, timing, events, queue, blobs }, { catalogue: { catalogue } }) => ({
    images: new ImagesService({
      db,
      clock,
      timing,
      events,
      queue,
      catalogue,
      bytes: blobs('images'),
    }),
  }),
  api: (ctx) => [imagesRoutes(ctx)],
  internal: (ctx) => [imageUploadRoutes(ctx)],
  stateHooks: ({ images }, { db }) => [imageBlobsStateHook(db, images.bytes)],
});
