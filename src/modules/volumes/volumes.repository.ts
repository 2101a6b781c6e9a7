import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import {
  type Devices,
  DEVICE_SLOTS,
  type DeviceSlot,
  emptyDevices,
} from '../compute/compute.repository.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import type { ApiVolume } from './volumes.schemas.js';
import { filesystemPath } from './volumes.rules.js';
import type { VolumesTable } from './volumes.table.js';
import { locksOf } from '../locks/locks.repository.js';

export type VolumeRow = Omit<VolumesTable, 'id'> & { id: number };

/** Filterable fields of Volume (reference: label, tags). */
export const VOLUME_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'volumes.label' },
  tags: tagsFilter('volume', 'volumes.id'),
};

/** A volume of the account, optionally row-locked until the transaction ends (PostgreSQL). */
export async function findVolume(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<VolumeRow | undefined> {
  const q = db.db
    .selectFrom('volumes')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** How many volumes are attached to an instance. */
export async function countAttached(db: Database, computeId: number): Promise<number> {
  const row = await db.db
    .selectFrom('volumes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('compute_id', '=', computeId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Builds the API shape of volumes, with their tags and instance labels, in two queries. */
export async function toApiVolumes(
  db: Database,
  rows: readonly VolumeRow[],
  /**
   * The rows were inserted by the caller's transaction (a create; an id is not handed out again
   * while rows naming it remain): they have no locks yet, and tags only when the create gave some.
   */
  created?: { tagged: boolean },
): Promise<ApiVolume[]> {
  const ids = rows.map((r) => r.id);
  const computeIds = [
    ...new Set(rows.flatMap((r) => (r.compute_id === null ? [] : [r.compute_id]))),
  ];
  const none = Promise.resolve(new Map<number, never[]>());
  const [tags, locks, labels] = await Promise.all([
    created && !created.tagged ? none : tagsOf(db, 'volume', ids),
    created ? none : locksOf(db, 'volume', ids),
    computeIds.length === 0
      ? Promise.resolve([] as { id: number; label: string; status: string }[])
      : db.db
          .selectFrom('instances')
          .select(['id', 'label', 'status'])
          .where('id', 'in', computeIds)
          .execute(),
  ]);
  const labelOf = new Map(labels.map((l) => [l.id, l.label]));
  const running = new Set(labels.filter((l) => l.status === 'running').map((l) => l.id));
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    filesystem_path: filesystemPath(r.label),
    hardware_type: r.hardware_type,
    compute_id: r.compute_id,
    compute_label: r.compute_id === null ? null : (labelOf.get(r.compute_id) ?? null),
    region: r.region,
    size: r.size,
    status: r.status,
    tags: tags.get(r.id) ?? [],
    created: r.created,
    updated: r.updated,
    // Ready for I/O: active, attached, and its instance running (the block device is there).
    io_ready: r.status === 'active' && r.compute_id !== null && running.has(r.compute_id),
    encryption: (r.encryption === 'enabled' ? 'enabled' : 'disabled') as 'enabled' | 'disabled',
    locks: locks.get(r.id) ?? [],
  }));
}

export const devicesOf = (text: string): Devices => ({
  ...emptyDevices(),
  ...parseJson<Partial<Devices>>(text, {}),
});

/** The first empty device slot of a config, or undefined when all eight are taken. */
export function freeSlot(devices: Devices): DeviceSlot | undefined {
  return DEVICE_SLOTS.find((s) => devices[s] === null);
}

/** Removes a volume from every config of an instance (detach, delete, instance delete). */
export async function removeFromConfigs(
  db: Database,
  computeId: number,
  volumeId: number,
  nowIso: string,
): Promise<void> {
  const configs = await db.db
    .selectFrom('configs')
    .select(['id', 'devices'])
    .where('instance_id', '=', computeId)
    .execute();
  for (const c of configs) {
    const devices = devicesOf(c.devices);
    let changed = false;
    for (const s of DEVICE_SLOTS) {
      const d = devices[s];
      if (d !== null && 'volume_id' in d && d.volume_id === volumeId) {
        devices[s] = null;
        changed = true;
      }
    }
    if (changed) {
      await db.db
        .updateTable('configs')
        .set({ devices: JSON.stringify(devices), updated: nowIso })
        .where('id', '=', c.id)
        .execute();
    }
  }
}

/** Id and label of every volume of an account, by id (grants views and checks). */
export async function volumeLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('volumes')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}
