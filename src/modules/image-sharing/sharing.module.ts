import { defineArea } from '../../platform/area.js';
import { catalogueModule } from '../catalogue/catalogue.module.js';
import { imagesModule } from '../images/images.module.js';
import { sharingRoutes } from './sharing.routes.js';
import { SharingService, sharedImageFor, sharedImagesVisibleTo } from './sharing.service.js';

/** Image share groups: a producer shares private images with member accounts, by token. */
export const imageSharingModule = defineArea({
  name: 'imageSharing',
  needs: [imagesModule, catalogueModule],
  tables: ['image_share_groups', 'image_shares', 'image_share_tokens', 'image_share_members'],
  services: ({ db, clock }, { catalogue: { catalogue } }) => {
    // A member account lists, views and deploys (instances, disks, rebuilds) a group's
    // `shared/<n>` images.
    catalogue.resolveSharedImagesWith(sharedImageFor, sharedImagesVisibleTo);
    return { sharing: new SharingService({ db, clock }) };
  },
  api: (ctx) => [sharingRoutes(ctx)],
});
