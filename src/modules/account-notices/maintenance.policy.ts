import { DEFAULT_MAINTENANCE_POLICY, MAINTENANCE_POLICY_LIST } from '../compute/compute.schemas.js';
import type { MaintenanceType } from './notices.table.js';

/** What a maintenance does to the instance: move it live, or power it off and on again. */
export type MaintenanceEffect = 'migrate' | 'power_off_on';

function policyOf(slug: string | null | undefined) {
  return (
    MAINTENANCE_POLICY_LIST.find((p) => p.slug === slug) ??
    (MAINTENANCE_POLICY_LIST.find(
      (p) => p.slug === DEFAULT_MAINTENANCE_POLICY,
    ) as (typeof MAINTENANCE_POLICY_LIST)[number])
  );
}

/** The maintenance type a policy gives (`migrate`, `power_off_on`). */
export function policyType(slug: string | null | undefined): MaintenanceType {
  return policyOf(slug).type;
}

/** The notice a policy gives before scheduled maintenance (`notification_period_sec`), in ms. */
export function noticeMs(slug: string | null | undefined): number {
  return policyOf(slug).notification_period_sec * 1000;
}

/**
 * The effect of a type: the newer types name it; of the reference's, a live migration moves the
 * instance live, and a reboot or a cold migration powers it off and on.
 */
export function effectOf(type: string): MaintenanceEffect {
  return type === 'migrate' || type === 'live_migration' ? 'migrate' : 'power_off_on';
}

/** The event that follows a maintenance (the web manager's `compute_migrate`, `compute_poweroff_on`). */
export function eventActionOf(effect: MaintenanceEffect): string {
  return effect === 'migrate' ? 'compute_migrate' : 'compute_poweroff_on';
}
