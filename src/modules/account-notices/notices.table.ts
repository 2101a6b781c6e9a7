import type { Generated } from 'kysely';

export type MaintenanceType = 'reboot' | 'cold_migration' | 'live_migration';
/** `canceled` is Stratus's own: canceled entries are kept but never listed. */
export type MaintenanceStatus = 'pending' | 'started' | 'completed' | 'canceled';

/** Maintenance of an entity (compute instances only) scheduled by the operator. */
export interface MaintenancesTable {
  id: Generated<number>;
  account_id: number;
  entity_type: string;
  entity_id: number;
  type: MaintenanceType;
  reason: string;
  status: MaintenanceStatus;
  /** Start of the window. */
  when: string;
  when_ms: number;
  /** End of the window. */
  until: string;
  until_ms: number;
  created: string;
}

export interface NoticeTables {
  maintenances: MaintenancesTable;
}
