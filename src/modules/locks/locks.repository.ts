import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { LockType, ResourceLocksTable } from './locks.table.js';

export type LockRow = Omit<ResourceLocksTable, 'id'> & { id: number };

/** The entity types a lock may name, with the word their refusals use. */
export const LOCKABLE: Readonly<Record<string, string>> = {
  compute: 'Compute',
  volume: 'Volume',
  nodebalancer: 'NodeBalancer',
};

export const LOCK_TYPES: readonly LockType[] = ['cannot_delete', 'cannot_delete_with_subresources'];

/** Filterable fields of `GET /locks`. */
export const LOCK_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'resource_locks.id' },
  lock_type: { kind: 'string', column: 'resource_locks.lock_type' },
  'entity.id': { kind: 'int', column: 'resource_locks.entity_id' },
  'entity.type': { kind: 'string', column: 'resource_locks.entity_type' },
};

/** The lock on an entity, if any (there is at most one). */
export function lockOn(db: Database, type: string, id: number): Promise<LockRow | undefined> {
  return db.db
    .selectFrom('resource_locks')
    .selectAll()
    .where('entity_type', '=', type)
    .where('entity_id', '=', id)
    .executeTakeFirst();
}

/** The `locks` field of several entities of one type: the lock types on each. */
export async function locksOf(
  db: Database,
  type: string,
  ids: readonly number[],
): Promise<Map<number, LockType[]>> {
  const out = new Map<number, LockType[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db.db
    .selectFrom('resource_locks')
    .select(['entity_id', 'lock_type'])
    .where('entity_type', '=', type)
    .where('entity_id', 'in', [...ids])
    .orderBy('id')
    .execute();
  for (const r of rows) out.get(r.entity_id)?.push(r.lock_type);
  return out;
}

/**
 * Refuses an operation that a lock forbids on the entity itself (its deletion, a rebuild, a
 * transfer): any lock does. @NOTE the real service's wording for this refusal is not recorded;
 * it follows the recorded one of a conflicting lock ("The cannot_delete lock (Lock ID: 1432)
 * needs to be removed to add …"), docs/fidelity.md.
 */
export async function refuseIfLocked(
  db: Database,
  type: string,
  id: number,
  verb: string,
): Promise<void> {
  const reason = await lockedReason(db, type, [id], verb);
  if (reason) throw errors.reason(reason, 'locked');
}

/** Why `verb` is refused for one of the entities (any lock), or undefined. */
export async function lockedReason(
  db: Database,
  type: string,
  ids: readonly number[],
  verb: string,
): Promise<string | undefined> {
  if (ids.length === 0) return undefined;
  const lock = await db.db
    .selectFrom('resource_locks')
    .selectAll()
    .where('entity_type', '=', type)
    .where('entity_id', 'in', [...ids])
    .orderBy('id')
    .executeTakeFirst();
  if (!lock) return undefined;
  return `The ${lock.lock_type} lock (Lock ID: ${lock.id}) needs to be removed to ${verb} this ${LOCKABLE[type] ?? type}.`;
}

/**
 * Refuses deleting a sub-resource (`what`: disks, configs, interfaces, IP addresses, nodes…) of an
 * entity under a `cannot_delete_with_subresources` lock; a `cannot_delete` lock leaves them free.
 */
export async function refuseIfSubresourcesLocked(
  db: Database,
  type: string,
  id: number,
  what: string,
): Promise<void> {
  const lock = await lockOn(db, type, id);
  if (lock?.lock_type !== 'cannot_delete_with_subresources') return;
  throw errors.reason(
    `The ${lock.lock_type} lock (Lock ID: ${lock.id}) needs to be removed to delete ${what} of this ${LOCKABLE[type] ?? type}.`,
    'locked',
  );
}
