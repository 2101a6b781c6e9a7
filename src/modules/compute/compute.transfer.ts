import { billInstance } from '../billing/billables.js';
import { lockedReason } from '../locks/locks.repository.js';
import type { TransferCascade, Transferable } from '../../entities/entities.js';
import type { Database } from '../../db/database.js';
import { isoSeconds } from '../../lib/time.js';
import { SCHEDULE_ENTITY } from './backups.jobs.js';
import { IDLE_STATUSES } from './instances.service.js';

/**
 * Service transfers of compute instances (src/modules/transfers): instances are the one type
 * the reference lets a transfer carry.
 */
export const computeTransferable: Transferable = {
  field: 'computes',
  async lock(db, accountId, ids) {
    if (ids.length === 0) return [];
    const q = db.db
      .selectFrom('instances')
      .select(['id', 'label'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .where('status', '!=', 'deleting')
      .orderBy('id');
    return (await db.forUpdate(q).execute()).map((r) => ({ id: r.id, label: r.label }));
  },
};

async function busy(db: Database, ids: readonly number[]): Promise<boolean> {
  const notIdle = await db.db
    .selectFrom('instances')
    .select('id')
    .where('id', 'in', ids)
    .where('status', 'not in', [...IDLE_STATUSES] as never[])
    .executeTakeFirst();
  if (notIdle) return true;
  const job = await db.db
    .selectFrom('jobs')
    .select('id')
    .where('status', 'in', ['queued', 'running'])
    .where((eb) =>
      eb.or([
        eb.and([eb('entity_type', '=', 'compute'), eb('entity_id', 'in', ids)]),
        eb.and([
          eb('entity_type', '=', 'disk'),
          eb(
            'entity_id',
            'in',
            eb.selectFrom('disks').select('id').where('instance_id', 'in', ids),
          ),
        ]),
      ]),
    )
    .executeTakeFirst();
  return job !== undefined;
}

/**
 * The compute area's own part: an instance moves idle (running or offline, no work under way),
 * without VLAN or VPC interfaces (networks of the sending account), with its disks, configs,
 * backups and automatic backup schedule. Running periods before the accept stay the sender's
 * (billing and statistics facts); an open one is split at the accept.
 */
export const computeTransferCascade: TransferCascade = {
  async refuse(db, _accountId, ids, receiverId) {
    if (await busy(db, ids)) return 'Compute busy.';
    // A lock protects an instance from a transfer as from its deletion (locks area).
    const locked = await lockedReason(db, 'compute', ids, 'transfer');
    if (locked) return locked;
    if (receiverId !== undefined) {
      // Labels are unique among an account's instances: the receiver renames its own first.
      const clash = await db.db
        .selectFrom('instances as moving')
        .innerJoin('instances as own', 'own.label', 'moving.label')
        .select('moving.label')
        .where('moving.id', 'in', ids)
        .where('own.account_id', '=', receiverId)
        .executeTakeFirst();
      if (clash) return `A compute instance labeled ${clash.label} already exists in your account.`;
    }
    const iface = await db.db
      .selectFrom('config_interfaces')
      .select('purpose')
      .where('instance_id', 'in', ids)
      .where('purpose', 'in', ['vlan', 'vpc'])
      .executeTakeFirst();
    // An instance's own interfaces (interface_generation compute) count the same.
    const own = await db.db
      .selectFrom('compute_interfaces')
      .select('purpose')
      .where('instance_id', 'in', ids)
      .where('purpose', 'in', ['vlan', 'vpc'])
      .executeTakeFirst();
    const held = iface ?? own;
    if (held) {
      return `Compute instances with ${held.purpose === 'vlan' ? 'VLAN' : 'VPC'} interfaces cannot be transferred.`;
    }
    return undefined;
  },
  async move(db, m) {
    const set = { account_id: m.to };
    // The compute driver's rows (seeds, samples, disk sources) go with their instance.
    for (const table of [
      'instances',
      'disks',
      'configs',
      'backups',
      'instance_seeds',
      'machine_samples',
      'disk_sources',
      'compute_interfaces',
    ] as const) {
      const idCol = table === 'instances' ? 'id' : 'instance_id';
      await db.db
        .updateTable(table)
        .set(table === 'instances' ? { ...set, updated: isoSeconds(m.nowMs) } : set)
        .where(idCol, 'in', m.ids)
        .execute();
    }
    const open = await db.db
      .selectFrom('instance_runs')
      .select('instance_id')
      .where('instance_id', 'in', m.ids)
      .where('stopped_ms', 'is', null)
      .execute();
    if (open.length > 0) {
      await db.db
        .updateTable('instance_runs')
        .set({ stopped_ms: m.nowMs })
        .where('instance_id', 'in', m.ids)
        .where('stopped_ms', 'is', null)
        .execute();
      await db.db
        .insertInto('instance_runs')
        .values(
          open.map((r) => ({
            instance_id: r.instance_id,
            account_id: m.to,
            started_ms: m.nowMs,
            stopped_ms: null,
          })),
        )
        .execute();
    }
    // The sender's firewalls stay with the sender: its interfaces leave them.
    await db.db
      .deleteFrom('firewall_devices')
      .where('entity_type', '=', 'compute_interface')
      .where('entity_id', 'in', (eb) =>
        eb.selectFrom('compute_interfaces').select('id').where('instance_id', 'in', m.ids),
      )
      .execute();
    // Scheduled maintenance (account-notices) follows the instance.
    await db.db
      .updateTable('maintenances')
      .set({ account_id: m.to })
      .where('entity_type', '=', 'compute')
      .where('entity_id', 'in', m.ids)
      .execute();
    await db.db
      .updateTable('jobs')
      .set({ account_id: m.to })
      .where('entity_type', '=', SCHEDULE_ENTITY)
      .where('entity_id', 'in', m.ids)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    // Billing: the sender's periods close at the accept and the receiver's open (a change of
    // account splits them).
    for (const id of m.ids) await billInstance(db, id, isoSeconds(m.nowMs));
  },
};
