import type { Selectable } from 'kysely';
import type { Database } from '../../db/database.js';
import type { MaintenancesTable } from './notices.table.js';

export type MaintenanceRow = Selectable<MaintenancesTable>;

export function findMaintenance(
  db: Database,
  id: number,
  lock = false,
): Promise<MaintenanceRow | undefined> {
  const q = db.db.selectFrom('maintenances').selectAll().where('id', '=', id);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}
