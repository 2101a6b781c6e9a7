import type { FieldErrors } from '../../errors/errors.js';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import { billInstance } from '../billing/billables.js';
import { parseJson, toBool } from '../../db/database.js';
import { containsCondition, type FilterSpec } from '../../lib/filter.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { type EntityRef, entityRefs } from '../events/events.types.js';
import type { AllocatedIp } from '../networking/ip-allocator.js';
import type { IpKind } from '../networking/networking.table.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import { DEFAULT_MAINTENANCE_POLICY } from './compute.schemas.js';
import type { ComputeTables, InstancesTable } from './compute.table.js';
import type { NormalizedInterface } from './interfaces.rules.js';
import { locksOf } from '../locks/locks.repository.js';
import { placementOfInstances } from '../placement/placement.repository.js';
import { eui64 } from '../networking/ip-allocator.js';
import { apiInterfaceIpv6, readInterfaceIpv6, storeInterfaceIpv6 } from '../vpcs/vpc-ipv6.rules.js';

export type InstanceRow = Omit<InstancesTable, 'id'> & { id: number };
type Row<T extends keyof ComputeTables> = Omit<ComputeTables[T], 'id'> & { id: number };
export type DiskRow = Row<'disks'>;
export type ConfigRow = Row<'configs'>;
export type InterfaceRow = Row<'config_interfaces'>;

/** Filterable fields of Compute (reference: not status, not type). */
export const INSTANCE_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'instances.id' },
  label: { kind: 'string', column: 'instances.label' },
  region: { kind: 'string', column: 'instances.region' },
  image: { kind: 'string', column: 'instances.image' },
  group: { kind: 'string', column: 'instances.group_label' },
  tags: tagsFilter('compute', 'instances.id'),
  ipv4: {
    kind: 'array',
    member: (op, value, dialect): RawBuilder<SqlBool> => {
      const base = sql`select 1 from ip_addresses ip where ip.instance_id = instances.id`;
      if (op === 'eq') return sql<SqlBool>`exists (${base} and ip.address = ${value})`;
      if (op === 'neq') return sql<SqlBool>`not exists (${base} and ip.address = ${value})`;
      return sql<SqlBool>`exists (${base} and ${containsCondition(sql.ref('ip.address'), value, dialect)})`;
    },
  },
};

/** An instance by id alone, for jobs: their payload was checked when they were enqueued. */
export function instanceById(db: Database, id: number): Promise<InstanceRow | undefined> {
  return db.db.selectFrom('instances').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * An instance the caller may see, checked for the given permission (404 when it is another
 * account's or not there; 403 without the grant), locked when asked (PostgreSQL `FOR UPDATE`).
 */
export async function loadInstance(
  db: Database,
  p: Principal,
  id: number,
  level: 'read_only' | 'read_write',
  lock = false,
): Promise<InstanceRow> {
  const row = await findInstance(db, p.accountId, id, lock);
  if (!row) throw errors.notFound();
  await authz.requireEntity(db, p, 'compute', id, level);
  return row;
}

export async function findInstance(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<InstanceRow | undefined> {
  const q = db.db
    .selectFrom('instances')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** IPv4 addresses of instances: public first, then private, each by address. */
export async function ipv4Of(db: Database, ids: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  // Ordered here, public before private and by number within a kind: a page's instances hold
  // a few addresses each, and an ORDER BY over the IN list made the database sort them all.
  const rows = await db.db
    .selectFrom('ip_addresses')
    .select(['instance_id', 'address', 'kind', 'address_num'])
    .where('instance_id', 'in', ids)
    .execute();
  rows.sort((a, b) =>
    a.kind === b.kind ? Number(a.address_num) - Number(b.address_num) : a.kind < b.kind ? 1 : -1,
  );
  for (const r of rows) if (r.instance_id !== null) out.get(r.instance_id)?.push(r.address);
  return out;
}

/** Builds the API shape of instances, with their tags and addresses, in three queries. */
export async function toApiInstances(
  db: Database,
  catalogue: CatalogueService,
  rows: readonly InstanceRow[],
) {
  const ids = rows.map((r) => r.id);
  const [tags, ips, placement, locks] = await Promise.all([
    tagsOf(db, 'compute', ids),
    ipv4Of(db, ids),
    placementOfInstances(db, rows),
    locksOf(db, 'compute', ids),
  ]);
  return rows.map((r) => {
    const t = catalogue.type(r.type);
    const region = catalogue.region(r.region);
    return {
      id: r.id,
      label: r.label,
      region: r.region,
      image: r.image,
      type: r.type,
      group: r.group_label,
      tags: tags.get(r.id) ?? [],
      status: r.status,
      hypervisor: 'kvm' as const,
      created: r.created,
      updated: r.updated,
      ipv4: ips.get(r.id) ?? [],
      ipv6: r.ipv6 === null ? null : `${r.ipv6}/128`,
      specs: {
        disk: t?.disk ?? 0,
        memory: t?.memory ?? 0,
        vcpus: t?.vcpus ?? 0,
        gpus: t?.gpus ?? 0,
        transfer: t?.transfer ?? 0,
        accelerated_devices: 0,
      },
      alerts: {
        ...parseJson(r.alerts, { cpu: 0, network_in: 0, network_out: 0, transfer_quota: 0, io: 0 }),
        system_alerts: [] as number[],
        user_alerts: [] as number[],
      },
      backups: {
        enabled: toBool(r.backups_enabled),
        available: false,
        schedule: { day: r.backups_day, window: r.backups_window },
        last_successful: r.backups_last_successful,
      },
      watchdog_enabled: toBool(r.watchdog_enabled),
      host_uuid: r.host_uuid,
      has_user_data: toBool(r.has_user_data),
      site_type: region?.site_type ?? ('core' as const),
      capabilities: (region?.capabilities ?? []).filter((c) => INSTANCE_CAPABILITIES.has(c)),
      maintenance_policy: r.maintenance_policy ?? DEFAULT_MAINTENANCE_POLICY,
      disk_encryption: encryptionOf(r.disk_encryption),
      interface_generation: (r.interface_generation ?? 'legacy_config') as
        | 'legacy_config'
        | 'compute',
      lke_cluster_id: null,
      placement_group: placement.get(r.id) ?? null,
      locks: locks.get(r.id) ?? [],
    };
  });
}

/**
 * The region capabilities that an instance there has as its own (`capabilities`): those of
 * features that depend on the host. None of the shipped regions offers them yet.
 */
const INSTANCE_CAPABILITIES: ReadonlySet<string> = new Set([
  'Block Storage Encryption',
  'Block Storage Performance B1',
  'SMTP Enabled',
]);
export type ApiInstance = Awaited<ReturnType<typeof toApiInstances>>[number];

export function newHostUuid(): string {
  return randomUUID();
}

export async function insertIp(
  db: Database,
  a: {
    accountId: number;
    instanceId: number | null;
    region: string;
    kind: IpKind;
    ip: AllocatedIp;
  },
  nowIso: string,
) {
  const row = await db.db
    .insertInto('ip_addresses')
    .values({
      account_id: a.accountId,
      instance_id: a.instanceId,
      region: a.region,
      address: a.ip.address,
      address_num: a.ip.address_num,
      kind: a.kind,
      prefix: a.ip.prefix,
      gateway: a.ip.gateway,
      subnet_mask: a.ip.subnet_mask,
      rdns: null,
      created: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // An instance's public IPv4 beyond its first is billed (and creating an instance opens its
  // billing with its first address).
  if (a.instanceId !== null && a.kind === 'public') await billInstance(db, a.instanceId, nowIso);
  return row;
}

export async function insertDisk(
  db: Database,
  d: {
    instanceId: number;
    accountId: number;
    label: string;
    size: number;
    filesystem: string;
    image: string | null;
    usedMb: number;
    status: DiskRow['status'];
  },
  nowIso: string,
): Promise<number> {
  const row = await db.db
    .insertInto('disks')
    .values({
      instance_id: d.instanceId,
      account_id: d.accountId,
      label: d.label,
      status: d.status,
      size: d.size,
      filesystem: d.filesystem,
      image: d.image,
      used_mb: d.usedMb,
      created: nowIso,
      updated: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
export type DeviceSlot = (typeof DEVICE_SLOTS)[number];
export type Device = { disk_id: number } | { volume_id: number } | null;
export type Devices = Record<DeviceSlot, Device>;

export const emptyDevices = (): Devices =>
  Object.fromEntries(DEVICE_SLOTS.map((s) => [s, null])) as Devices;

export const DEFAULT_HELPERS = {
  updatedb_disabled: true,
  distro: true,
  modules_dep: true,
  network: true,
  devtmpfs_automount: true,
};

export async function insertConfig(
  db: Database,
  c: {
    instanceId: number;
    accountId: number;
    label: string;
    kernel: string;
    comments: string | null;
    memoryLimit: number;
    runLevel: string;
    virtMode: string;
    rootDevice: string;
    helpers: typeof DEFAULT_HELPERS;
    devices: Devices;
  },
  nowIso: string,
): Promise<number> {
  const row = await db.db
    .insertInto('configs')
    .values({
      instance_id: c.instanceId,
      account_id: c.accountId,
      label: c.label,
      kernel: c.kernel,
      comments: c.comments,
      memory_limit: c.memoryLimit,
      run_level: c.runLevel,
      virt_mode: c.virtMode,
      root_device: c.rootDevice,
      helpers: JSON.stringify(c.helpers),
      devices: JSON.stringify(c.devices),
      created: nowIso,
      updated: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Replaces a config's interfaces with the list given (positions 0..2). */
export async function replaceInterfaces(
  db: Database,
  configId: number,
  instanceId: number,
  list: readonly NormalizedInterface[],
): Promise<void> {
  await db.db.deleteFrom('config_interfaces').where('config_id', '=', configId).execute();
  if (list.length === 0) return;
  await db.db
    .insertInto('config_interfaces')
    .values(list.map((i, position) => interfaceValues(configId, instanceId, position, i)))
    .execute();
}

/** The row of an interface at a position of a config: the inverse of `normalizedOf`. */
export function interfaceValues(
  configId: number,
  instanceId: number,
  position: number,
  i: NormalizedInterface,
) {
  return {
    config_id: configId,
    instance_id: instanceId,
    position,
    purpose: i.purpose,
    label: i.label,
    ipam_address: i.ipam_address,
    is_primary: i.primary ? 1 : 0,
    vpc_id: i.vpc_id ?? null,
    subnet_id: i.subnet_id,
    ipv4_vpc: i.ipv4_vpc,
    ipv4_nat_1_1: i.ipv4_nat_1_1,
    ip_ranges: i.ip_ranges === null ? null : JSON.stringify(i.ip_ranges),
    ipv6: storeInterfaceIpv6(i.ipv6),
  };
}

// ---- disks, configs and config interfaces ----

/** Statuses in which an instance's booted config (and its disks) are in use. */
export const POWERED_STATUSES: ReadonlySet<InstanceRow['status']> = new Set([
  'running',
  'booting',
  'rebooting',
  'shutting_down',
]);

/** Filterable fields of disks and configs (reference `x-compute-filterable`). */
export const DISK_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'disks.label' },
  size: { kind: 'int', column: 'disks.size' },
};
export const CONFIG_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'configs.label' },
};

export async function findDisk(
  db: Database,
  instanceId: number,
  diskId: number,
  lock = false,
): Promise<DiskRow | undefined> {
  const q = db.db
    .selectFrom('disks')
    .selectAll()
    .where('id', '=', diskId)
    .where('instance_id', '=', instanceId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

/** A config as an event's secondary entity (boot events name the config they boot, the wire). */
export async function configRef(
  db: Database,
  instanceId: number,
  configId: number | null,
): Promise<EntityRef | null> {
  if (configId === null) return null;
  const row = await findConfig(db, instanceId, configId);
  return row ? entityRefs.config(instanceId, row.id, row.label) : null;
}

export async function findConfig(
  db: Database,
  instanceId: number,
  configId: number,
  lock = false,
): Promise<ConfigRow | undefined> {
  const q = db.db
    .selectFrom('configs')
    .selectAll()
    .where('id', '=', configId)
    .where('instance_id', '=', instanceId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

export function parseDevices(text: string): Devices {
  return { ...emptyDevices(), ...parseJson<Partial<Devices>>(text, {}) };
}

/** MB taken by the instance's disks (every status), without `exceptDiskId`. */
export async function allocatedDiskMb(
  db: Database,
  instanceId: number,
  exceptDiskId?: number,
): Promise<number> {
  let q = db.db
    .selectFrom('disks')
    .select(sql<number | string | null>`sum(size)`.as('mb'))
    .where('instance_id', '=', instanceId);
  if (exceptDiskId !== undefined) q = q.where('id', '<>', exceptDiskId);
  const row = await q.executeTakeFirst();
  return Number(row?.mb ?? 0);
}

/** Whether the config is in use: the instance last booted it and is powered. */
export function configInUse(
  inst: Pick<InstanceRow, 'status' | 'last_booted_config_id'>,
  configId: number,
): boolean {
  return inst.last_booted_config_id === configId && POWERED_STATUSES.has(inst.status);
}

/** Whether a disk is in use: in the config the instance last booted, while it is powered. */
export async function diskInUse(db: Database, inst: InstanceRow, diskId: number): Promise<boolean> {
  if (inst.last_booted_config_id === null || !POWERED_STATUSES.has(inst.status)) return false;
  const cfg = await findConfig(db, inst.id, inst.last_booted_config_id);
  if (!cfg) return false;
  return Object.values(parseDevices(cfg.devices)).some(
    (d) => d !== null && 'disk_id' in d && d.disk_id === diskId,
  );
}

/** The region capability that lets an instance's disks be encrypted (`disk_encryption`). */
export const DISK_ENCRYPTION = 'Disk Encryption';
const DE_UNAVAILABLE = 'Disk Encryption is not available in this region';

const DE_DISTRIBUTED =
  'Compute instances at distributed sites are always encrypted; disk_encryption cannot be disabled';

export function encryptionOf(v: string | null | undefined): 'enabled' | 'disabled' {
  return v === 'enabled' ? 'enabled' : 'disabled';
}

/**
 * The `disk_encryption` of a create or a rebuild: what it asks for, else the region's default
 * (`enabled` where the region has the capability, as the provider's SDK tests expect); asking
 * for `enabled` in a region without it is refused, naming the field.
 */
export function diskEncryptionFor(
  fe: FieldErrors,
  region: { capabilities: string[]; site_type?: string } | undefined,
  asked: string | undefined,
): 'enabled' | 'disabled' {
  // A distributed site encrypts every instance's disks, and the setting cannot be changed.
  if (region?.site_type === 'distributed') {
    if (asked === 'disabled') fe.add('disk_encryption', DE_DISTRIBUTED);
    return 'enabled';
  }
  const offered = region?.capabilities.includes(DISK_ENCRYPTION) ?? false;
  if (asked === 'enabled' && region && !offered) fe.add('disk_encryption', DE_UNAVAILABLE);
  if (asked === 'enabled' || asked === 'disabled') return asked;
  return offered ? 'enabled' : 'disabled';
}

/** A disk as the API shows it: its encryption is its instance's (`disk_encryption`). */
export function toApiDisk(r: DiskRow, encryption?: string | null) {
  return {
    id: r.id,
    label: r.label,
    status: r.status,
    size: r.size,
    filesystem: r.filesystem,
    created: r.created,
    updated: r.updated,
    disk_encryption: encryptionOf(encryption),
  };
}
export type ApiDisk = ReturnType<typeof toApiDisk>;

/**
 * The address a 1:1 NAT of `any` stands for: the instance's first public IPv4 (by allocation
 * order), looked up only when one of `rows` says `any`.
 */
export async function natAnyOf(
  db: Database,
  instanceId: number,
  rows: readonly { ipv4_nat_1_1: string | null }[],
): Promise<string | null> {
  if (!rows.some((r) => r.ipv4_nat_1_1 === 'any')) return null;
  const first = await db.db
    .selectFrom('ip_addresses')
    .select('address')
    .where('instance_id', '=', instanceId)
    .where('kind', '=', 'public')
    .orderBy('id')
    .executeTakeFirst();
  return first?.address ?? null;
}

/**
 * `active`: the interface's config is the booted one and the instance is running. `natAny`: the
 * address `ipv4.nat_1_1: any` is answered as (see natAnyOf): the real service answers the address.
 */
export function toApiInterface(r: InterfaceRow, active: boolean, natAny: string | null) {
  return {
    id: r.id,
    label: r.label,
    ipam_address: r.ipam_address,
    purpose: r.purpose,
    active,
    primary: toBool(r.is_primary),
    vpc_id: r.vpc_id,
    subnet_id: r.subnet_id,
    ipv4:
      r.purpose === 'vpc'
        ? { vpc: r.ipv4_vpc, nat_1_1: r.ipv4_nat_1_1 === 'any' ? natAny : r.ipv4_nat_1_1 }
        : null,
    ip_ranges:
      r.purpose !== 'vpc' ? null : r.ip_ranges === null ? [] : parseJson<string[]>(r.ip_ranges, []),
    ipv6:
      r.purpose !== 'vpc'
        ? null
        : apiInterfaceIpv6(readInterfaceIpv6(r.ipv6), eui64(r.instance_id)),
  };
}
export type ApiInterface = ReturnType<typeof toApiInterface>;

/** Interfaces of configs, each list in position order. */
export async function interfacesOf(
  db: Database,
  configIds: readonly number[],
): Promise<Map<number, InterfaceRow[]>> {
  const out = new Map<number, InterfaceRow[]>(configIds.map((id) => [id, []]));
  if (configIds.length === 0) return out;
  const rows = await db.db
    .selectFrom('config_interfaces')
    .selectAll()
    .where('config_id', 'in', [...configIds])
    .orderBy('config_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  for (const r of rows) out.get(r.config_id)?.push(r);
  return out;
}

/** A stored interface in the shape the interface rules check. */
export function normalizedOf(r: InterfaceRow): NormalizedInterface {
  return {
    purpose: r.purpose,
    label: r.label,
    ipam_address: r.ipam_address,
    primary: toBool(r.is_primary),
    subnet_id: r.subnet_id,
    vpc_id: r.vpc_id,
    ipv4_vpc: r.ipv4_vpc,
    ipv4_nat_1_1: r.ipv4_nat_1_1,
    ip_ranges: r.ip_ranges === null ? null : parseJson<string[]>(r.ip_ranges, []),
    ipv6: readInterfaceIpv6(r.ipv6),
  };
}

/** Addresses of the instance's vlan interfaces, in every config but `exceptConfigId`. */
export async function instanceIpams(
  db: Database,
  instanceId: number,
  exceptConfigId?: number,
): Promise<Set<string>> {
  let q = db.db
    .selectFrom('config_interfaces')
    .select('ipam_address')
    .where('instance_id', '=', instanceId)
    .where('purpose', '=', 'vlan')
    .where('ipam_address', 'is not', null);
  if (exceptConfigId !== undefined) q = q.where('config_id', '<>', exceptConfigId);
  return new Set((await q.execute()).map((r) => r.ipam_address as string));
}

/** Builds the API shape of configs of one instance, with their interfaces, in one more query. */
export async function toApiConfigs(db: Database, inst: InstanceRow, rows: readonly ConfigRow[]) {
  const ifaces = await interfacesOf(
    db,
    rows.map((r) => r.id),
  );
  const natAny = await natAnyOf(db, inst.id, [...ifaces.values()].flat());
  return rows.map((r) => {
    const devices = parseDevices(r.devices);
    const active = inst.status === 'running' && inst.last_booted_config_id === r.id;
    return {
      id: r.id,
      label: r.label,
      kernel: r.kernel,
      // No comments is an empty string on the wire, not null.
      comments: r.comments ?? '',
      memory_limit: r.memory_limit,
      run_level: r.run_level,
      virt_mode: r.virt_mode,
      root_device: r.root_device,
      helpers: { ...DEFAULT_HELPERS, ...parseJson<Partial<typeof DEFAULT_HELPERS>>(r.helpers, {}) },
      devices: Object.fromEntries(
        DEVICE_SLOTS.map((s) => {
          const d = devices[s];
          if (d === null) return [s, null];
          return [
            s,
            'disk_id' in d
              ? { disk_id: d.disk_id, volume_id: null }
              : { disk_id: null, volume_id: d.volume_id },
          ];
        }),
      ) as Record<DeviceSlot, { disk_id: number | null; volume_id: number | null } | null>,
      interfaces: (ifaces.get(r.id) ?? []).map((i) => toApiInterface(i, active, natAny)),
      // Stratus boots no initrd disk: null, as the wire shows for a config without one.
      initrd: null,
      created: r.created,
      updated: r.updated,
    };
  });
}
export type ApiConfig = Awaited<ReturnType<typeof toApiConfigs>>[number];

/** Ids and labels of an account's instances, for the grants views. */
export async function instanceLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('instances')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}
