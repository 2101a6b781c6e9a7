import type { Generated } from 'kysely';

/**
 * The reference's three types, and the newer wire's two that name a maintenance policy's effect:
 * `live_migration` and `migrate` move the instance live; `reboot`, `cold_migration` and
 * `power_off_on` power it off and on again.
 */
export type MaintenanceType =
  | 'reboot'
  | 'cold_migration'
  | 'live_migration'
  | 'migrate'
  | 'power_off_on';
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
  /** Start of the window (planned; moved on when the instance was busy at the start). */
  when: string;
  when_ms: number;
  /** End of the window. */
  until: string;
  until_ms: number;
  created: string;
  /** `scheduled` (the policy's notice period applies) or `emergency` (no notice). */
  description: Generated<string>;
  /** `platform` or `user`. */
  source: Generated<string>;
  /** 1: `type` follows the instance's policy until the maintenance starts. */
  by_policy: Generated<number>;
  /** The earliest start the notice period allows. */
  not_before: string | null;
  not_before_ms: number | null;
  /** When the work began and ended (null until then). */
  start_time: string | null;
  complete_time: string | null;
  /** The instance's policy when the maintenance started (null before: the live one applies). */
  policy: string | null;
  /** The `compute_migrate` or `compute_poweroff_on` event that follows the maintenance. */
  event_id: number | null;
  /** The instance's status when the work began (`running` or `offline`): it comes back to it. */
  prior_status: string | null;
}

export interface NoticeTables {
  maintenances: MaintenancesTable;
}
