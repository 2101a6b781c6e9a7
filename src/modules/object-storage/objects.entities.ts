import type { EntityType } from '../../entities/entities.js';

/**
 * Object storage declares no entity type: the reference's event `entity.type` enum has no
 * object storage value and its GrantsResponse no object storage grant (any user whose token has
 * the `object_storage` scopes manages the account's object storage). The key events
 * (`obj_access_key_*`) therefore carry no entity and name the key in `message`
 * (docs/fidelity.md). Buckets' stored bytes and transfer are read with `bucketUsage`
 * (objects.repository.ts).
 */
export const objectStorageEntities: EntityType[] = [];
