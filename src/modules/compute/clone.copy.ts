import { FieldErrors } from '../../errors/errors.js';
import { vpcInterfaceChecker } from '../vpcs/vpc-interfaces.js';
import type { Database } from '../../db/database.js';
import {
  type ConfigRow,
  type Devices,
  DEVICE_SLOTS,
  emptyDevices,
  insertConfig,
  insertDisk,
  interfacesOf,
  interfaceValues,
  normalizedOf,
  parseDevices,
} from './compute.repository.js';

/** What a clone copies: the selected configs and every disk they use, plus extra disks. */
export interface CloneSelection {
  configs: ConfigRow[];
  diskIds: number[];
}

/**
 * The clone table of the spec: `configs` omitted copies all configs and their disks, empty none,
 * listed those; `disks` adds extra disks (omitted or empty: none beyond the configs' disks).
 */
export async function selectForClone(
  db: Database,
  sourceId: number,
  configIds: number[] | undefined,
  diskIds: number[] | undefined,
): Promise<CloneSelection | { field: string; reason: string }> {
  const all = await db.db
    .selectFrom('configs')
    .selectAll()
    .where('instance_id', '=', sourceId)
    .orderBy('id')
    .execute();
  const disks = new Set(
    (
      await db.db.selectFrom('disks').select('id').where('instance_id', '=', sourceId).execute()
    ).map((d) => d.id),
  );
  let configs = all;
  if (configIds !== undefined) {
    const missing = configIds.find((id) => !all.some((c) => c.id === id));
    if (missing !== undefined) return { field: 'configs', reason: `Config ${missing} not found` };
    configs = all.filter((c) => configIds.includes(c.id));
  }
  const missingDisk = (diskIds ?? []).find((id) => !disks.has(id));
  if (missingDisk !== undefined) return { field: 'disks', reason: `Disk ${missingDisk} not found` };
  const chosen = new Set(diskIds ?? []);
  for (const c of configs) {
    for (const d of Object.values(parseDevices(c.devices)))
      if (d !== null && 'disk_id' in d && disks.has(d.disk_id)) chosen.add(d.disk_id);
  }
  return { configs, diskIds: [...chosen].sort((a, b) => a - b) };
}

/** MB the selected disks take. */
export async function selectionMb(db: Database, diskIds: number[]): Promise<number> {
  if (diskIds.length === 0) return 0;
  const rows = await db.db.selectFrom('disks').select('size').where('id', 'in', diskIds).execute();
  return rows.reduce((s, r) => s + r.size, 0);
}

/**
 * Copies the selection onto the target (disks `not ready` until the clone finishes). Device
 * slots keep the copied disks; volumes stay with the source. A 1:1 NAT on an interface becomes
 * `any`, and a vpc interface gets a new address of its subnet, chosen as at instance create
 * (a subnet of another region than the target's is a 400 naming the interface). A target of
 * the new interface generation gets the configs without their profile interfaces.
 */
export async function copySelection(
  db: Database,
  sel: CloneSelection,
  target: { id: number; region: string; interface_generation?: string },
  accountId: number,
  nowIso: string,
  /** Told each new disk and the disk it copies (the compute driver's bytes). */
  onDisk?: (diskId: number, fromDiskId: number) => Promise<void>,
): Promise<void> {
  const targetId = target.id;
  const diskMap = new Map<number, number>();
  if (sel.diskIds.length > 0) {
    const rows = await db.db
      .selectFrom('disks')
      .selectAll()
      .where('id', 'in', sel.diskIds)
      .orderBy('id')
      .execute();
    for (const d of rows) {
      const id = await insertDisk(
        db,
        {
          instanceId: targetId,
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
      diskMap.set(d.id, id);
      await onDisk?.(id, d.id);
    }
  }
  const ifaces = await interfacesOf(
    db,
    sel.configs.map((c) => c.id),
  );
  for (const c of sel.configs) {
    const from = parseDevices(c.devices);
    const devices: Devices = emptyDevices();
    for (const s of DEVICE_SLOTS) {
      const dv = from[s];
      if (dv !== null && 'disk_id' in dv && diskMap.has(dv.disk_id))
        devices[s] = { disk_id: diskMap.get(dv.disk_id) as number };
    }
    const configId = await insertConfig(
      db,
      {
        instanceId: targetId,
        accountId,
        label: c.label,
        kernel: c.kernel,
        comments: c.comments,
        memoryLimit: c.memory_limit,
        runLevel: c.run_level,
        virtMode: c.virt_mode,
        rootDevice: c.root_device,
        helpers: JSON.parse(c.helpers),
        devices,
      },
      nowIso,
    );
    // A target of the new generation has its own interfaces: its configs carry none.
    const copied = target.interface_generation === 'compute' ? [] : (ifaces.get(c.id) ?? []);
    const list = copied.map((row) => {
      const i = normalizedOf(row);
      return {
        ...i,
        ipv4_vpc: i.purpose === 'vpc' ? null : i.ipv4_vpc,
        ipv4_nat_1_1: i.ipv4_nat_1_1 ? 'any' : i.ipv4_nat_1_1,
        // New /64s of the subnet, as many as the source holds.
        ipv6: undefined,
        ipv6_request: i.ipv6
          ? {
              slaac: i.ipv6.slaac.map(() => ({ range: 'auto' })),
              ranges: i.ipv6.ranges.map(() => ({ range: '/64' })),
              is_public: i.ipv6.is_public,
            }
          : undefined,
      };
    });
    if (list.length === 0) continue;
    if (list.some((i) => i.purpose === 'vpc')) {
      const fe = new FieldErrors();
      await (await vpcInterfaceChecker(db, accountId, list)).complete(
        fe,
        (n, field) => `configs.${c.id}.interfaces.${n}.${field}`,
        list,
        { accountId, instanceId: targetId, region: target.region, creating: true },
      );
      fe.throwIfAny();
    }
    await db.db
      .insertInto('config_interfaces')
      .values(list.map((i, pos) => interfaceValues(configId, targetId, pos, i)))
      .execute();
  }
}
