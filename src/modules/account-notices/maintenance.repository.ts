import type { Database } from '../../db/database.js';
import type { MaintenancesTable } from './notices.table.js';

export type MaintenanceRow = Omit<MaintenancesTable, 'id'> & { id: number };

/**
 * Instances of `ids` inside a maintenance window now (a `started` maintenance): the compute
 * area shows them `stopped`. The window's jobs move the status, so this reads no clock and
 * holds across restarts; the instance's own status is untouched and shows again afterwards.
 */
export async function underMaintenance(db: Database, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.db
    .selectFrom('maintenances')
    .select('entity_id')
    .where('entity_type', '=', 'compute')
    .where('status', '=', 'started')
    .where('entity_id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.entity_id));
}

export function findMaintenance(
  db: Database,
  id: number,
  lock = false,
): Promise<MaintenanceRow | undefined> {
  const q = db.db.selectFrom('maintenances').selectAll().where('id', '=', id);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}
