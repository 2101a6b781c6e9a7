import { computeEntities } from '../modules/compute/compute.entities.js';
import { objectStorageEntities } from '../modules/object-storage/objects.entities.js';
import { volumeEntities } from '../modules/volumes/volumes.entities.js';
import type { EntityType } from './entities.js';

/** Every area's entity types, listed explicitly. A new area adds its declarations here. */
export function entityDeclarations(): EntityType[] {
  return [...computeEntities, ...volumeEntities, ...objectStorageEntities];
}
