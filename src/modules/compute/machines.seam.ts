import { randomBytes } from 'node:crypto';
import { encrypt } from 'unixcrypt';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import {
  type ComputeDriver,
  DEVICE_SLOTS,
  type DiskSource,
  type MachineSpec,
  type VolumeRef,
} from '../../machines/driver.js';
import { catalogueData } from '../catalogue/catalogue.data.js';
import { machineFirewalls } from '../networking/firewall-machines.js';
import { type Devices, parseDevices } from './compute.repository.js';

/**
 * The compute area's side of the driver seam (src/machines): what the jobs and services hand the
 * driver, read from the rows. Nothing here runs with the simulated driver (`machines.real` is
 * false), so the simulated life cycle is exactly what it was.
 */

/** The credentials of a deployment, as the NoCloud seed carries them at the next boot. */
export interface SeedInput {
  rootPass?: string | undefined;
  authorizedKeys?: readonly string[] | undefined;
  /** The metadata's user data, base64 as the API takes it. */
  userData?: string | null | undefined;
}

const CRYPT_SALT = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** crypt(3) SHA-512 with a random 16-character salt: what /etc/shadow and cloud-init take. */
export function hashRootPass(password: string): string {
  const salt = [...randomBytes(16)].map((b) => CRYPT_SALT[b % 64]).join('');
  return encrypt(password, `$6$${salt}`);
}

/**
 * Records a deployment's credentials for the next boot's seed (create, rebuild, disk deploy,
 * password resets). Only the password's hash is kept. `merge`: keys and user data not given stay.
 */
export async function recordSeed(
  tx: Database,
  machines: ComputeDriver,
  ids: { instanceId: number; accountId: number },
  s: SeedInput,
  nowIso: string,
  merge = false,
): Promise<void> {
  if (!machines.real) return;
  const prev = await tx.db
    .selectFrom('instance_seeds')
    .selectAll()
    .where('instance_id', '=', ids.instanceId)
    .executeTakeFirst();
  const hash = s.rootPass !== undefined ? hashRootPass(s.rootPass) : null;
  const userData =
    s.userData === undefined || s.userData === null
      ? null
      : Buffer.from(s.userData, 'base64').toString('utf8');
  const row = {
    account_id: ids.accountId,
    generation: (prev?.generation ?? 0) + 1,
    root_pass_hash: hash ?? (merge ? (prev?.root_pass_hash ?? null) : null),
    authorized_keys: JSON.stringify(
      s.authorizedKeys ?? (merge ? parseJson<string[]>(prev?.authorized_keys, []) : []),
    ),
    user_data: userData ?? (merge ? (prev?.user_data ?? null) : null),
    updated: nowIso,
  };
  if (prev)
    await tx.db
      .updateTable('instance_seeds')
      .set(row)
      .where('instance_id', '=', ids.instanceId)
      .execute();
  else
    await tx.db
      .insertInto('instance_seeds')
      .values({ instance_id: ids.instanceId, ...row })
      .execute();
}

/** Where a not-ready disk gets its bytes, when that is not its image (a backup, another disk). */
export async function recordDiskSource(
  tx: Database,
  machines: ComputeDriver,
  d: { diskId: number; instanceId: number; accountId: number },
  source: DiskSource,
): Promise<void> {
  if (!machines.real) return;
  await tx.db
    .insertInto('disk_sources')
    .values({
      disk_id: d.diskId,
      instance_id: d.instanceId,
      account_id: d.accountId,
      source: JSON.stringify(source),
    })
    .execute();
}

/** Why `image` cannot be deployed on this host (its bytes are not here), or undefined. */
export function imageProblem(machines: ComputeDriver, image: string | null | undefined) {
  if (!machines.real || image === null || image === undefined) return undefined;
  return machines.imageProblem(image);
}

/** Statuses in which an instance's machine holds its resources. */
const HOLDING = ['running', 'booting', 'rebooting', 'shutting_down'] as const;

/**
 * 400 when the host cannot run one more machine of `typeId` now: the scaled resources of the
 * instances that run or are booting, plus this one, must fit STRATUS_VM_HOST_*. The driver checks
 * again when it starts the machine.
 */
export async function assertCapacity(
  db: Database,
  machines: ComputeDriver,
  instanceId: number | null,
  typeId: string,
): Promise<void> {
  if (!machines.real) return;
  const types = new Map(catalogueData().types.map((t) => [t.id, t]));
  let q = db.db
    .selectFrom('instances')
    .select('type')
    .where('status', 'in', [...HOLDING]);
  if (instanceId !== null) q = q.where('id', '<>', instanceId);
  const used = { vcpus: 0, memoryMb: 0 };
  for (const r of await q.execute()) {
    const t = types.get(r.type);
    if (!t) continue;
    const s = machines.scaled({ vcpus: t.vcpus, memoryMb: t.memory });
    used.vcpus += s.vcpus;
    used.memoryMb += s.memoryMb;
  }
  const t = types.get(typeId);
  if (!t) return;
  const need = machines.scaled({ vcpus: t.vcpus, memoryMb: t.memory });
  const cap = machines.capacity();
  if (used.vcpus + need.vcpus > cap.vcpus || used.memoryMb + need.memoryMb > cap.memoryMb)
    throw errors.reason(
      'The host has no capacity to run this compute instance now; shut down another instance or try again later.',
      'no_capacity',
    );
}

/** The source of each of an instance's disks: a recorded one, else its image, else empty. */
export async function diskSourceOf(
  db: Database,
  disk: { id: number; image: string | null; filesystem: string },
): Promise<DiskSource> {
  const row = await db.db
    .selectFrom('disk_sources')
    .select('source')
    .where('disk_id', '=', disk.id)
    .executeTakeFirst();
  if (row) return parseJson<DiskSource>(row.source, { kind: 'empty' });
  if (disk.image === null || disk.filesystem === 'swap') return { kind: 'empty' };
  const m = /^private\/(\d+)$/.exec(disk.image);
  if (m) {
    const img = await db.db
      .selectFrom('private_images')
      .select('blob_key')
      .where('id', '=', Number(m[1]))
      .executeTakeFirst();
    return img?.blob_key
      ? { kind: 'image', image: disk.image, uploadKey: img.blob_key }
      : { kind: 'image', image: disk.image };
  }
  return { kind: 'image', image: disk.image };
}

/**
 * Makes the instance's files match its disk rows: bytes for every disk that has none (from its
 * source), no file for a disk that is gone (a rebuild or an overwriting restore deleted its row).
 */
export async function syncInstanceDisks(
  db: Database,
  machines: ComputeDriver,
  inst: { id: number; region: string },
): Promise<void> {
  const ref = { instanceId: inst.id, region: inst.region };
  const rows = await db.db
    .selectFrom('disks')
    .select(['id', 'size', 'filesystem', 'image'])
    .where('instance_id', '=', inst.id)
    .orderBy('id')
    .execute();
  const have = new Set(await machines.listDisks(ref));
  const want = new Set(rows.map((r) => r.id));
  for (const id of have) if (!want.has(id)) await machines.deleteDisk({ ...ref, diskId: id });
  for (const r of rows) {
    if (!have.has(r.id)) {
      await machines.createDisk(
        { ...ref, diskId: r.id },
        { sizeMb: r.size, filesystem: r.filesystem, source: await diskSourceOf(db, r) },
      );
    }
    await db.db.deleteFrom('disk_sources').where('disk_id', '=', r.id).execute();
  }
}

/** What the machine of an instance boots: `configId`'s devices, or the rescue system's. */
export async function machineSpec(
  db: Database,
  instanceId: number,
  configId: number | null,
  rescue: Partial<
    Record<string, { disk_id?: number | null; volume_id?: number | null } | null>
  > | null,
): Promise<MachineSpec> {
  const inst = await db.db
    .selectFrom('instances')
    .selectAll()
    .where('id', '=', instanceId)
    .executeTakeFirstOrThrow();
  const type = catalogueData().types.find((t) => t.id === inst.type);
  const cfg =
    configId === null
      ? undefined
      : await db.db.selectFrom('configs').selectAll().where('id', '=', configId).executeTakeFirst();
  let devices: Devices;
  if (rescue) {
    devices = parseDevices('{}');
    for (const s of DEVICE_SLOTS.slice(0, 7)) {
      const d = rescue[s];
      if (d?.disk_id) devices[s] = { disk_id: d.disk_id };
      else if (d?.volume_id) devices[s] = { volume_id: d.volume_id };
    }
  } else {
    devices = cfg ? parseDevices(cfg.devices) : parseDevices('{}');
  }
  const volumes = new Map(
    (
      await db.db
        .selectFrom('volumes')
        .select(['id', 'label', 'region'])
        .where('compute_id', '=', instanceId)
        .execute()
    ).map((v) => [v.id, v]),
  );
  const out: MachineSpec['devices'] = {};
  for (const s of DEVICE_SLOTS) {
    const d = devices[s];
    if (!d) continue;
    if ('disk_id' in d) out[s] = { disk: d.disk_id };
    else {
      const v = volumes.get(d.volume_id);
      if (v) out[s] = { volume: { volumeId: v.id, region: v.region, label: v.label } };
    }
  }
  const seedRow = await db.db
    .selectFrom('instance_seeds')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
  const ips = await db.db
    .selectFrom('ip_addresses')
    .select(['address', 'prefix', 'gateway', 'kind'])
    .where('instance_id', '=', instanceId)
    .orderBy('kind')
    .orderBy('id')
    .execute();
  const memory = type?.memory ?? 1024;
  const limit = cfg?.memory_limit ?? 0;
  return {
    instanceId,
    region: inst.region,
    hostname: inst.label,
    vcpus: type?.vcpus ?? 1,
    memoryMb: limit > 0 && limit < memory ? limit : memory,
    kernel: cfg?.kernel ?? 'compute/latest-64bit',
    rootDevice: cfg?.root_device ?? '/dev/sda',
    runLevel: cfg?.run_level ?? 'default',
    devices: out,
    rescue: rescue !== null,
    seed: {
      instanceId: `compute-${instanceId}-${seedRow?.generation ?? 0}`,
      hostname: inst.label,
      rootPassHash: seedRow?.root_pass_hash ?? null,
      authorizedKeys: parseJson<string[]>(seedRow?.authorized_keys, []),
      userData: seedRow?.user_data ?? null,
    },
    network: {
      ipv4: ips.map((i) => ({ address: i.address, prefix: i.prefix, gateway: i.gateway })),
      ipv6: inst.ipv6,
    },
    firewalls: await machineFirewalls(db, instanceId),
  };
}

/** The volumes the running machine of an instance should have, with their slots. */
export async function wantedVolumes(
  db: Database,
  inst: { id: number; last_booted_config_id: number | null },
): Promise<{ volume: VolumeRef; slot: (typeof DEVICE_SLOTS)[number] | null }[]> {
  const vols = await db.db
    .selectFrom('volumes')
    .select(['id', 'label', 'region', 'status'])
    .where('compute_id', '=', inst.id)
    .execute();
  const cfg =
    inst.last_booted_config_id === null
      ? undefined
      : await db.db
          .selectFrom('configs')
          .select('devices')
          .where('id', '=', inst.last_booted_config_id)
          .executeTakeFirst();
  const devices = cfg ? parseDevices(cfg.devices) : undefined;
  return vols
    .filter((v) => v.status !== 'creating')
    .map((v) => ({
      volume: { volumeId: v.id, region: v.region, label: v.label },
      slot:
        DEVICE_SLOTS.find((s) => {
          const d = devices?.[s];
          return d !== null && d !== undefined && 'volume_id' in d && d.volume_id === v.id;
        }) ?? null,
    }));
}
