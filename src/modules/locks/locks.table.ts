import type { Generated } from 'kysely';

export type LockType = 'cannot_delete' | 'cannot_delete_with_subresources';

/** A delete-protection lock on one entity (at most one per entity). */
export interface ResourceLocksTable {
  id: Generated<number>;
  account_id: number;
  /** The locked entity's event type: `compute`, `volume`, `nodebalancer`. */
  entity_type: string;
  entity_id: number;
  lock_type: LockType;
  created: string;
}

export interface LockTables {
  resource_locks: ResourceLocksTable;
}
