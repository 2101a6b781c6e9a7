import { computeEntities } from '../modules/compute/compute.entities.js';
import { nodebalancerEntities } from '../modules/nodebalancers/nodebalancers.entities.js';
import { networkingEntities } from '../modules/networking/networking.entities.js';
import { oauthEntities } from '../modules/oauth/oauth.entities.js';
import { objectStorageEntities } from '../modules/object-storage/objects.entities.js';
import { volumeEntities } from '../modules/volumes/volumes.entities.js';
import { vpcEntities } from '../modules/vpcs/vpcs.entities.js';
import { imageEntities } from '../modules/images/images.entities.js';
import { stackScriptEntities } from '../modules/stackscripts/stackscripts.entities.js';
import type { EntityType } from './entities.js';

/** Every area's entity types, listed explicitly. A new area adds its declarations here. */
export function entityDeclarations(): EntityType[] {
  return [
    ...computeEntities,
    ...volumeEntities,
    ...vpcEntities,
    ...nodebalancerEntities,
    ...networkingEntities,
    ...imageEntities,
    ...stackScriptEntities,
    ...oauthEntities,
    ...objectStorageEntities,
  ];
}
