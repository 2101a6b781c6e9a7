import type { EntityType } from '../../entities/entities.js';
import { bucketLabels, keyLabels } from './objects.repository.js';

/**
 * Object storage. The reference has no grant type for buckets or keys (any user with the
 * `object_storage` scopes manages the account's object storage) and no event entity type: the
 * key events (`obj_access_key_*`) name `object_storage_key` (docs/fidelity.md). Buckets are
 * addressed by cluster and label, so their URL is the collection's; their summaries' labels are
 * `cluster/label`.
 */
export const objectStorageEntities: EntityType[] = [
  {
    type: 'object_storage_key',
    url: (id) => `/v4/object-storage/keys/${id}`,
    list: keyLabels,
  },
  {
    type: 'object_storage_bucket',
    url: () => '/v4/object-storage/buckets',
    list: bucketLabels,
  },
];
