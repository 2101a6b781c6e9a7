import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import type { FieldErrors } from '../../errors/errors.js';
import { parseJson, toBool } from '../../db/database.js';
import {
  DEFAULT_HELPERS,
  type DeviceSlot,
  DEVICE_SLOTS,
  emptyDevices,
  insertConfig,
  insertDisk,
  interfacesOf,
  interfaceValues,
  normalizedOf,
  parseDevices,
} from './compute.repository.js';
import type { BackupsTable } from './compute.table.js';
import type { NormalizedInterface } from './interfaces.rules.js';

export type BackupRow = Omit<BackupsTable, 'id'> & { id: number };

/** What a backup holds: the instance's disks and configs when it was taken. */
export interface BackupContents {
  image: string | null;
  disks: {
    key: number;
    label: string;
    size: number;
    filesystem: string;
    used_mb: number;
    image: string | null;
  }[];
  configs: {
    label: string;
    kernel: string;
    comments: string | null;
    memory_limit: number;
    run_level: string;
    virt_mode: string;
    root_device: string;
    helpers: typeof DEFAULT_HELPERS;
    /** Slots holding a disk of the backup (by key); volumes are not part of a backup. */
    devices: Partial<Record<DeviceSlot, number>>;
    interfaces: NormalizedInterface[];
  }[];
}

/** The contents of an instance now. */
export async function captureContents(
  db: Database,
  instanceId: number,
  image: string | null,
): Promise<BackupContents> {
  const disks = await db.db
    .selectFrom('disks')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('id')
    .execute();
  const configs = await db.db
    .selectFrom('configs')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('id')
    .execute();
  const ifaces = await interfacesOf(
    db,
    configs.map((c) => c.id),
  );
  return {
    image,
    disks: disks.map((d) => ({
      key: d.id,
      label: d.label,
      size: d.size,
      filesystem: d.filesystem,
      used_mb: d.used_mb,
      image: d.image,
    })),
    configs: configs.map((c) => {
      const devices: Partial<Record<DeviceSlot, number>> = {};
      for (const [slot, dev] of Object.entries(parseDevices(c.devices)))
        if (dev !== null && 'disk_id' in dev) devices[slot as DeviceSlot] = dev.disk_id;
      return {
        label: c.label,
        kernel: c.kernel,
        comments: c.comments,
        memory_limit: c.memory_limit,
        run_level: c.run_level,
        virt_mode: c.virt_mode,
        root_device: c.root_device,
        helpers: parseJson(c.helpers, DEFAULT_HELPERS),
        devices,
        interfaces: (ifaces.get(c.id) ?? []).map(normalizedOf),
      };
    }),
  };
}

export const contentsOf = (r: BackupRow): BackupContents =>
  parseJson<BackupContents>(r.contents, { image: null, disks: [], configs: [] });

export const contentsMb = (c: BackupContents): number => c.disks.reduce((s, d) => s + d.size, 0);

/**
 * Writes a backup's disks (`not ready` until the restore or deployment finishes) and configs onto
 * an instance. Returns the first config's id (null if none).
 */
export async function writeContents(
  db: Database,
  c: BackupContents,
  instanceId: number,
  accountId: number,
  nowIso: string,
  /** Told each new disk and the backup disk (key) it comes from (the compute driver's bytes). */
  onDisk?: (diskId: number, key: number) => Promise<void>,
): Promise<number | null> {
  const keys = new Map<number, number>();
  for (const d of c.disks) {
    const id = await insertDisk(
      db,
      {
        instanceId,
        accountId,
        label: d.label,
        size: d.size,
        filesystem: d.filesystem,
        image: d.image,
        usedMb: d.used_mb,
        status: 'not ready',
      },
      nowIso,
    );
    keys.set(d.key, id);
    await onDisk?.(id, d.key);
  }
  let first: number | null = null;
  for (const cfg of c.configs) {
    const devices = emptyDevices();
    for (const s of DEVICE_SLOTS) {
      const key = cfg.devices[s];
      const id = key === undefined ? undefined : keys.get(key);
      if (id !== undefined) devices[s] = { disk_id: id };
    }
    const configId = await insertConfig(
      db,
      {
        instanceId,
        accountId,
        label: cfg.label,
        kernel: cfg.kernel,
        comments: cfg.comments,
        memoryLimit: cfg.memory_limit,
        runLevel: cfg.run_level,
        virtMode: cfg.virt_mode,
        rootDevice: cfg.root_device,
        helpers: cfg.helpers,
        devices,
      },
      nowIso,
    );
    first ??= configId;
    if (cfg.interfaces.length > 0) {
      await db.db
        .insertInto('config_interfaces')
        .values(
          cfg.interfaces.map((i, pos) =>
            interfaceValues(configId, instanceId, pos, {
              ...i,
              ipv4_vpc: i.purpose === 'vpc' ? null : i.ipv4_vpc,
              ipv6: null,
            }),
          ),
        )
        .execute();
    }
  }
  return first;
}

/** The API shape of a backup. */
export function toApiBackup(r: BackupRow) {
  const c = contentsOf(r);
  return {
    id: r.id,
    type: r.type,
    status: r.status,
    available: toBool(r.available),
    created: r.created,
    updated: r.updated,
    finished: r.finished,
    label: r.label,
    region: r.region,
    configs: c.configs.map((x) => x.label),
    disks: c.disks.map((d) => ({ size: d.size, filesystem: d.filesystem, label: d.label })),
  };
}
export type ApiBackup = ReturnType<typeof toApiBackup>;

/** Deletes every backup of an instance (cancel, delete). */
export async function dropBackups(db: Database, instanceId: number): Promise<void> {
  await db.db.deleteFrom('backups').where('instance_id', '=', instanceId).execute();
}

/**
 * The backup of a create with `backup_id` (spec): a backup of another instance of the account
 * (read_write on it), successful and available, in the same region, and fitting the type.
 * Returns its contents, or nothing with the problem added to `fe`.
 */
export async function deployableBackup(
  db: Database,
  fe: FieldErrors,
  p: Principal,
  backupId: number,
  region: string | undefined,
  typeDisk: number | undefined,
): Promise<BackupContents | undefined> {
  const row = await db.db
    .selectFrom('backups')
    .selectAll()
    .where('id', '=', backupId)
    .where('account_id', '=', p.accountId)
    .executeTakeFirst();
  if (!row) {
    fe.add('backup_id', 'Backup not found');
    return undefined;
  }
  await authz.requireEntity(db, p, 'compute', row.instance_id, 'read_write');
  const c = contentsOf(row);
  if (row.status !== 'successful' || !toBool(row.available))
    fe.add('backup_id', 'Only a successful, available backup can be deployed');
  else if (region !== undefined && row.region !== region)
    fe.add('backup_id', 'The backup must be in the region of the new instance');
  else if (typeDisk !== undefined && contentsMb(c) > typeDisk)
    fe.add('type', 'The type is too small for the backup');
  else return c;
  return undefined;
}
