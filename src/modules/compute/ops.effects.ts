import type { Database } from '../../db/database.js';
import { billInstance } from '../billing/billables.js';
import { parseJson } from '../../db/database.js';
import { catalogueData, type InstanceType } from '../catalogue/catalogue.data.js';
import {
  attachLimit,
  MANY_VOLUMES_MIN_RAM_GB,
  PERSISTENT_VOLUME_MAX,
} from '../volumes/volumes.rules.js';
import { changeInstanceType } from './plan-changes.js';

/** A migration queued or under way, kept on the instance (`pending_migration`). */
export interface PendingMigration {
  kind: 'host' | 'datacenter';
  /** Data-center moves: the target region, its addresses (reserved at request) and SLAAC. */
  region?: string;
  ipIds?: number[];
  ipv6?: string | null;
  /** `upgrade`: the type migrated to. */
  type?: string;
  /** The placement group the instance moves into (placement area: `migrating_to`). */
  placementGroupId?: number;
}

export async function readPendingMigration(
  db: Database,
  instanceId: number,
): Promise<PendingMigration | null> {
  const row = await db.db
    .selectFrom('instances')
    .select('pending_migration')
    .where('id', '=', instanceId)
    .executeTakeFirst();
  if (!row?.pending_migration) return null;
  return parseJson<PendingMigration | null>(row.pending_migration, null);
}

/** How an instance's disks fit a new type. */
export interface DiskFit {
  fits: boolean;
  /** The disk the automatic resize grows or shrinks, and its new size. */
  autoDiskId: number | null;
  autoSize: number;
  allocated: number;
}

/**
 * Whether the disks fit `type`. With `allow_auto_disk_resize` and a single non-swap disk (plus at
 * most one swap disk), that disk is resized to fill the new type, and must keep its data;
 * otherwise the disks' total must fit the new type as they are.
 */
export async function diskFit(
  db: Database,
  instanceId: number,
  type: InstanceType,
  allowAuto: boolean,
): Promise<DiskFit> {
  const disks = await db.db
    .selectFrom('disks')
    .select(['id', 'size', 'used_mb', 'filesystem'])
    .where('instance_id', '=', instanceId)
    .execute();
  const allocated = disks.reduce((s, d) => s + d.size, 0);
  const data = disks.filter((d) => d.filesystem !== 'swap');
  const swap = disks.filter((d) => d.filesystem === 'swap');
  if (allowAuto && data.length === 1 && swap.length <= 1) {
    const disk = data[0] as (typeof data)[number];
    const autoSize = type.disk - swap.reduce((s, d) => s + d.size, 0);
    return {
      fits: autoSize >= Math.max(1, disk.used_mb),
      autoDiskId: disk.id,
      autoSize,
      allocated,
    };
  }
  return { fits: allocated <= type.disk, autoDiskId: null, autoSize: 0, allocated };
}

export const DISKS_DO_NOT_FIT =
  "The instance's disks do not fit the new type: shrink or delete disks first";

/** Changes the type (through the billing seam) and applies the automatic disk resize. */
export async function applyTypeChange(
  db: Database,
  instanceId: number,
  typeId: string,
  allowAuto: boolean,
  nowIso: string,
  type?: InstanceType,
): Promise<void> {
  await changeInstanceType(db, instanceId, typeId, nowIso);
  const t = type ?? catalogueData().types.find((x) => x.id === typeId);
  if (!allowAuto || !t) return;
  const fit = await diskFit(db, instanceId, t, true);
  if (fit.autoDiskId !== null && fit.fits) {
    await db.db
      .updateTable('disks')
      .set({ size: fit.autoSize, updated: nowIso })
      .where('id', '=', fit.autoDiskId)
      .execute();
  }
}

/** The end of a data-center move: region, addresses (reserved at request), volumes. */
export async function finishDatacenterMove(
  db: Database,
  instanceId: number,
  m: PendingMigration,
  nowIso: string,
): Promise<void> {
  if (!m.region) return;
  // A reserved address is the account's: it stays reserved, unassigned, in its own region.
  await db.db
    .updateTable('ip_addresses')
    .set({ instance_id: null, rdns: null })
    .where('instance_id', '=', instanceId)
    .where('reserved', '=', 1)
    .execute();
  await db.db.deleteFrom('ip_addresses').where('instance_id', '=', instanceId).execute();
  if (m.ipIds && m.ipIds.length > 0) {
    await db.db
      .updateTable('ip_addresses')
      .set({ instance_id: instanceId })
      .where('id', 'in', m.ipIds)
      .execute();
  }
  await db.db
    .updateTable('instances')
    .set({ region: m.region, ipv6: m.ipv6 ?? null, updated: nowIso })
    .where('id', '=', instanceId)
    .execute();
  await billInstance(db, instanceId, nowIso);
  // Attached volumes move with the instance.
  await db.db
    .updateTable('volumes')
    .set({ region: m.region, updated: nowIso })
    .where('compute_id', '=', instanceId)
    .execute();
}

/** A migration that did not happen gives back the addresses it reserved. */
export async function abandonMigration(db: Database, instanceId: number): Promise<void> {
  const m = await readPendingMigration(db, instanceId);
  if (m?.ipIds && m.ipIds.length > 0) {
    await db.db
      .deleteFrom('ip_addresses')
      .where('id', 'in', m.ipIds)
      .where('instance_id', 'is', null)
      .execute();
  }
  await db.db
    .updateTable('instances')
    .set({ pending_migration: null })
    .where('id', '=', instanceId)
    .execute();
}

/**
 * Why the volumes attached to an instance would not fit a new type (spec §8: as many volumes
 * as GB of RAM, up to 64; more than 8 only with 16 GB of RAM or more), or undefined.
 */
export async function volumesProblem(
  db: Database,
  instanceId: number,
  type: InstanceType,
): Promise<string | undefined> {
  const attached = (
    await db.db.selectFrom('volumes').select('id').where('compute_id', '=', instanceId).execute()
  ).length;
  const limit = attachLimit(type.memory);
  if (attached > limit)
    return `The new type allows at most ${limit} attached volumes; detach volumes first.`;
  if (attached > PERSISTENT_VOLUME_MAX && type.memory < MANY_VOLUMES_MIN_RAM_GB * 1024)
    return `More than ${PERSISTENT_VOLUME_MAX} volumes need a type with ${MANY_VOLUMES_MIN_RAM_GB} GB of RAM or more; detach volumes first.`;
  return undefined;
}
