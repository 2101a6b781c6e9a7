import { accountModule } from './modules/account/account.module.js';
import { accountNoticesModule } from './modules/account-notices/notices.module.js';
import { agreementsModule } from './modules/agreements/agreements.module.js';
import { betasModule } from './modules/betas/betas.module.js';
import { billingModule } from './modules/billing/billing.module.js';
import { catalogueModule } from './modules/catalogue/catalogue.module.js';
import { childAccountsModule } from './modules/child-accounts/child-accounts.module.js';
import { computeModule } from './modules/compute/compute.module.js';
import { consoleModule } from './modules/console/console.module.js';
import { controlsModule } from './modules/controls/controls.module.js';
import { domainsModule } from './modules/domains/domains.module.js';
import { eventsModule } from './modules/events/events.module.js';
import { identityModule } from './modules/identity/identity.module.js';
import { imagesModule } from './modules/images/images.module.js';
import { imageSharingModule } from './modules/image-sharing/sharing.module.js';
import { locksModule } from './modules/locks/locks.module.js';
import { longviewModule } from './modules/longview/longview.module.js';
import { managedModule } from './modules/managed/managed.module.js';
import { networkUsageModule } from './modules/network-usage/network-usage.module.js';
import { networkingModule } from './modules/networking/networking.module.js';
import { nodebalancersModule } from './modules/nodebalancers/nodebalancers.module.js';
import { oauthModule } from './modules/oauth/oauth.module.js';
import { placementModule } from './modules/placement/placement.module.js';
import { objectStorageModule } from './modules/object-storage/objects.module.js';
import { profileModule } from './modules/profile/profile.module.js';
import { stackscriptsModule } from './modules/stackscripts/stackscripts.module.js';
import { supportModule } from './modules/support/support.module.js';
import { tagsModule } from './modules/tags/tags.module.js';
import { transfersModule } from './modules/transfers/transfers.module.js';
import { volumesModule } from './modules/volumes/volumes.module.js';
import { vpcsModule } from './modules/vpcs/vpcs.module.js';
import type { AreasOf } from './platform/area.js';

/**
 * Every area of the server, in the order their services are built (an area comes after the
 * areas it needs) and their routes registered. Adding an area adds its folder and a line here.
 */
export const areaModules = [
  catalogueModule,
  eventsModule,
  identityModule,
  billingModule,
  accountModule,
  profileModule,
  networkingModule,
  locksModule,
  placementModule,
  computeModule,
  volumesModule,
  vpcsModule,
  tagsModule,
  nodebalancersModule,
  imagesModule,
  imageSharingModule,
  stackscriptsModule,
  oauthModule,
  objectStorageModule,
  transfersModule,
  accountNoticesModule,
  domainsModule,
  longviewModule,
  supportModule,
  managedModule,
  betasModule,
  agreementsModule,
  networkUsageModule,
  childAccountsModule,
  controlsModule,
  consoleModule,
] as const;

/** The services of every area, by area name: `ctx.areas.compute.instances`. */
export type Areas = AreasOf<typeof areaModules>;
