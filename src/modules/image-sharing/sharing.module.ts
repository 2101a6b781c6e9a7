import { defineArea } from '../../platform/area.js';
import { imagesModule } from '../images/images.module.js';
import { sharingRoutes } from './sharing.routes.js';
import { SharingService } from './sharing.service.js';

/** Image share groups: a producer shares private images with member accounts, by token. */
export const imageSharingModule = defineArea({
  name: 'imageSharing',
  needs: [imagesModule],
  tables: ['image_share_groups', 'image_shares', 'image_share_tokens', 'image_share_members'],
  services: ({ db, clock }) => ({ sharing: new SharingService({ db, clock }) }),
  api: (ctx) => [sharingRoutes(ctx)],
});
