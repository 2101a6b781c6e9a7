import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { billInstance } from '../billing/billables.js';

/**
 * The two billable changes of an instance. Every change of an instance's type (resize, mutate,
 * migrate with `upgrade`) goes through `changeInstanceType`, and every switch of its backups
 * add-on (enable, cancel, create with backups) through `setBackupsAddon`, so that billing has
 * one place each to hook into.
 */

/**
 * Changes the instance's type at `nowIso`.
 * Billing: the instance's period is split here — the old type is charged up to `nowIso`, the
 * new type from `nowIso` (with its region price); the backups add-on follows the type's price.
 */
export async function changeInstanceType(
  db: Database,
  instanceId: number,
  typeId: string,
  nowIso: string,
): Promise<void> {
  await db.db
    .updateTable('instances')
    .set({ type: typeId, updated: nowIso })
    .where('id', '=', instanceId)
    .execute();
  await billInstance(db, instanceId, nowIso);
}

/**
 * Turns the backups add-on on or off at `nowIso`. Enabling leaves the schedule to be chosen
 * (`Scheduling`) unless one is set; cancelling clears it.
 * Billing: the add-on is charged from enable to cancel (its period opens and closes here).
 */
export async function setBackupsAddon(
  db: Database,
  instanceId: number,
  enabled: boolean,
  nowIso: string,
): Promise<void> {
  await db.db
    .updateTable('instances')
    .set(
      enabled
        ? {
            backups_enabled: 1,
            backups_day: sql<string>`coalesce(backups_day, 'Scheduling')`,
            backups_window: sql<string>`coalesce(backups_window, 'Scheduling')`,
            updated: nowIso,
          }
        : {
            backups_enabled: 0,
            backups_day: null,
            backups_window: null,
            backups_last_successful: null,
            updated: nowIso,
          },
    )
    .where('id', '=', instanceId)
    .execute();
  await billInstance(db, instanceId, nowIso);
}
