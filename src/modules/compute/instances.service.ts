import type { Static } from '@sinclair/typebox';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson, toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { EventWriter } from '../events/events.writer.js';
import { type EntityRef, entityRefs } from '../events/events.types.js';
import type { FirewallsService } from '../networking/firewalls.service.js';
import type { IpAllocator } from '../networking/ip-allocator.js';
import type { ComputeDriver } from '../../machines/driver.js';
import { assertCapacity, imageProblem, recordDiskSource, recordSeed } from './machines.seam.js';
import { recordDeployment, checkStackScript } from '../stackscripts/stackscripts.deploy.js';
import { setTags } from '../tags/tags.repository.js';
import { rescheduleAutomaticBackups, scheduleAutomaticBackups } from './backups.jobs.js';
import { deployableBackup, writeContents } from './backups.repository.js';
import { deleteJob, lifecycleJob } from './compute.jobs.js';
import { setBackupsAddon } from './plan-changes.js';
import { markSeen } from './status-hold.js';
import {
  type ApiInstance,
  DEFAULT_HELPERS,
  emptyDevices,
  findInstance,
  INSTANCE_FILTERS,
  type InstanceRow,
  insertConfig,
  insertDisk,
  insertIp,
  loadInstance,
  newHostUuid,
  replaceInterfaces,
  diskEncryptionFor,
  toApiInstances,
} from './compute.repository.js';
import {
  checkTags,
  DEFAULT_SWAP_MB,
  defaultAlerts,
  instanceLabelProblem,
  userDataProblem,
} from './compute.rules.js';
import {
  type CreateComputeBody,
  maintenancePolicyError,
  type UpdateComputeBody,
} from './compute.schemas.js';
import { checkInterfaces, checkVlanRegion, type InterfaceInput } from './interfaces.rules.js';
import { BACKUPS, regionRefusals, typeAvailableIn } from './ops.start.js';
import type { ComputeInterfacesService } from './compute-interfaces.service.js';
import { listField, vpcInterfaceChecker } from '../vpcs/vpc-interfaces.js';
import { checkDeployCredentials } from './ssh.js';
import { refuseIfLocked } from '../locks/locks.repository.js';
import type { PlacementService } from '../placement/placement.service.js';
import { ipRef, reservedForCreate } from '../networking/reserved.repository.js';
import { billInstance } from '../billing/billables.js';

type CreateBody = Static<typeof CreateComputeBody>;
type UpdateBody = Static<typeof UpdateComputeBody>;
type XFilter = string | string[] | undefined;

/** Statuses in which an instance can take a new action. */
export const IDLE_STATUSES = new Set(['running', 'offline']);

export interface InstanceDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  catalogue: CatalogueService;
  ips: IpAllocator;
  /** Assigns `firewall_id` at create (the networking area). */
  firewalls?: FirewallsService;
  /** Places a new instance in its `placement_group` (the placement area). */
  placement?: PlacementService;
  /** The compute driver (src/machines): image bytes, capacity and the seed at the seam. */
  machines: ComputeDriver;
  /** The instance's own interfaces (`interface_generation: compute`). */
  computeInterfaces: ComputeInterfacesService;
}

/** Compute instances: create, list, view, update and delete. */
/** An image as an event's entity: a private one by number, a public one by its string id. */
function imageEntity(imageId: string, label: string): EntityRef {
  const n = /^private\/(\d+)$/.exec(imageId)?.[1];
  return n !== undefined
    ? { type: 'image', id: Number(n), label, url: `/v4/images/${imageId}` }
    : entityRefs.publicImage(imageId, label);
}

export class InstancesService {
  constructor(private readonly d: InstanceDeps) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  private async one(db: Database, row: InstanceRow): Promise<ApiInstance> {
    const [api] = await toApiInstances(db, this.d.catalogue, [row]);
    return api as ApiInstance;
  }

  /** An instance the caller may see (404 otherwise), checked for the given permission. */
  async load(
    db: Database,
    p: Principal,
    id: number,
    level: 'read_only' | 'read_write',
    lock = false,
  ): Promise<InstanceRow> {
    return loadInstance(db, p, id, level, lock);
  }

  /** 400 `Compute busy.` unless the instance is idle (running or offline, no work under way). */
  async assertIdle(db: Database, row: InstanceRow): Promise<void> {
    if (!IDLE_STATUSES.has(row.status)) throw errors.busy('Compute');
    await this.d.queue.assertIdle(db, 'compute', row.id, 'Compute');
  }

  /** Power actions also wait for work under way on the instance's disks. */
  async assertDisksIdle(db: Database, row: InstanceRow): Promise<void> {
    const diskJob = await db.db
      .selectFrom('jobs')
      .innerJoin('disks', 'disks.id', 'jobs.entity_id')
      .select('jobs.id')
      .where('jobs.entity_type', '=', 'disk')
      .where('disks.instance_id', '=', row.id)
      .where('jobs.status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    if (diskJob) throw errors.busy('Compute');
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiInstance>> {
    const { db } = this.d;
    let base = db.db.selectFrom('instances').where('instances.account_id', '=', p.accountId);
    const vis = authz.visible(p, 'compute', 'instances.id');
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('instances'),
      compileFilter(xf, INSTANCE_FILTERS, db.dialect),
      params,
      { idColumn: 'instances.id', countCache: db },
      (r: InstanceRow) => r,
    );
    await markSeen(db, page.data, this.d.clock.nowMs());
    return { ...page, data: await toApiInstances(db, this.d.catalogue, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiInstance> {
    const row = await this.load(this.d.db, p, id, 'read_only');
    await markSeen(this.d.db, [row], this.d.clock.nowMs());
    return this.one(this.d.db, row);
  }

  /** Create: every field of the spec's create table, checked together; then one transaction. */
  async create(p: Principal, b: CreateBody): Promise<ApiInstance> {
    const { catalogue } = this.d;
    authz.requireGlobal(p, 'add_computes');
    if (b.tags !== undefined && b.tags.length > 0 && p.restricted) throw errors.unauthorized();
    const fe = new FieldErrors();

    // The type's error before the region's, as the real service orders them (the Python SDK's
    // suite asserts the order).
    const type = catalogue.type(b.type);
    if (!type) fe.add('type', 'A valid plan type by that ID was not found');
    const region = catalogue.region(b.region);
    if (!region) fe.add('region', 'region is not valid');
    else if (!region.capabilities.includes('Computes'))
      fe.add('region', 'Compute instances are not available in this region');
    if (type && region?.capabilities.includes('Computes') && !typeAvailableIn(region, type))
      fe.add('type', 'This type is not available in this region');
    if (region) {
      const missing = regionRefusals(region, b);
      for (const [field, reason] of missing) fe.add(field, reason);
    }
    if (b.label !== undefined) {
      const lp = instanceLabelProblem(b.label);
      if (lp) fe.add('label', lp);
    }
    checkTags(fe, b.tags);
    checkMaintenancePolicy(fe, b.maintenance_policy);
    const diskEncryption = diskEncryptionFor(fe, region, b.disk_encryption);

    const imageId = b.image ?? null;
    if (imageId !== null && b.backup_id !== undefined && b.backup_id !== null) {
      fe.add('image', 'image and backup_id cannot both be given');
    }
    const backup =
      imageId === null && b.backup_id !== undefined && b.backup_id !== null
        ? await deployableBackup(this.d.db, fe, p, b.backup_id, region?.id, type?.disk)
        : undefined;
    const image = imageId === null ? undefined : await catalogue.deployableImage(p, imageId, fe);
    const keys = await checkDeployCredentials(this.d.db, fe, p, {
      imageId,
      imageFound: image !== undefined,
      ...b,
    });
    const missing = image ? imageProblem(this.d.machines, image.id) : undefined;
    if (missing) fe.add('image', missing);

    const swap = b.swap_size ?? DEFAULT_SWAP_MB;
    if (type && image) {
      const minDisk = catalogue.imageExtras(image.id)?.min_disk_mb ?? image.size;
      if (type.disk - swap < minDisk)
        fe.add('swap_size', `The plan's disk must leave at least ${minDisk} MB for the image`);
    }

    const userData = b.metadata?.user_data ?? null;
    if (userData !== null) {
      const up = userDataProblem(userData);
      if (up) fe.add('metadata.user_data', up);
      else if (region && !region.capabilities.includes('Metadata')) {
        fe.add('metadata.user_data', 'This region does not support metadata (cloud-init)');
      } else if (!image?.capabilities.includes('cloud-init')) {
        fe.add('metadata.user_data', 'user_data needs an image that supports cloud-init');
      }
    }
    const stackscript = await checkStackScript(this.d.db, fe, p, b, imageId);
    if (b.placement_group != null && !this.d.placement)
      fe.add('placement_group.id', 'Placement group not found.');
    await this.d.placement?.check(this.d.db, p, fe, b.placement_group ?? undefined, region?.id);
    // `ipv4`: a reserved address becomes the instance's public IPv4 (networking area).
    const wantsReserved = b.ipv4 !== undefined && b.ipv4 !== null && b.ipv4.length > 0;
    if (wantsReserved) {
      const r = await reservedForCreate(this.d.db, p, b.ipv4 ?? [], region?.id);
      if ('reason' in r) fe.add('ipv4', r.reason);
    }
    if (b.firewall_id !== undefined && b.firewall_id !== null && !this.d.firewalls)
      fe.add('firewall_id', 'Firewall not found');
    const account = await this.d.db.db
      .selectFrom('accounts')
      .select(['backups_enabled', 'interfaces_for_new_computes', 'maintenance_policy'])
      .where('id', '=', p.accountId)
      .executeTakeFirstOrThrow();
    const generation = interfaceGeneration(fe, b, account.interfaces_for_new_computes);
    // Profile interfaces (legacy generation), checked by the profile interface rules.
    const legacy =
      generation === 'legacy_config' && (b.interfaces ?? []).every((i) => i.purpose !== undefined)
        ? (b.interfaces as InterfaceInput[] | undefined)
        : undefined;
    const vpc = await vpcInterfaceChecker(this.d.db, p.accountId, legacy, false);
    const interfaces =
      legacy === undefined
        ? undefined
        : legacy.length === 0
          ? checkInterfaces(fe, 'interfaces', [{ purpose: 'public' }], {
              creating: true,
              subnetExists: vpc.subnetExists,
            })
          : checkInterfaces(fe, 'interfaces', legacy, {
              creating: true,
              subnetExists: vpc.subnetExists,
            });
    if (region)
      for (const [n, i] of (interfaces ?? []).entries())
        checkVlanRegion(fe, `interfaces.${n}.purpose`, i.purpose, region.id);
    fe.throwIfAny();
    if (!region || !type) throw errors.internal();

    // The account-wide setting forces backups on for new instances (where the region has them).
    const backups =
      (toBool(account.backups_enabled) && region.capabilities.includes(BACKUPS)) ||
      (b.backups_enabled ?? false);
    const booted = b.booted ?? (imageId !== null || backup !== undefined);

    const computeIfaces = this.d.computeInterfaces;
    return this.d.db.transaction(async (tx) => {
      const now = this.now();
      if (b.label !== undefined) await this.assertLabelFree(tx, p.accountId, b.label);
      if (booted) await assertCapacity(tx, this.d.machines, null, type.id);
      const inserted = await tx.db
        .insertInto('instances')
        .values({
          account_id: p.accountId,
          label: b.label ?? `compute-tmp-${newHostUuid()}`,
          region: region.id,
          type: type.id,
          image: imageId,
          status: 'provisioning',
          group_label: b.group ?? '',
          host_uuid: newHostUuid(),
          watchdog_enabled: 1,
          // Without one, the instance follows the account's default as it is now (the real service).
          maintenance_policy: b.maintenance_policy ?? account.maintenance_policy,
          alerts: JSON.stringify(defaultAlerts(type.vcpus)),
          backups_enabled: 0,
          backups_day: null,
          backups_window: null,
          backups_last_successful: null,
          has_user_data: userData !== null ? 1 : 0,
          ipv6: null,
          last_booted_config_id: null,
          pending_migration: null,
          resume_status: null,
          interface_generation: generation,
          disk_encryption: diskEncryption,
          created: now,
          updated: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = inserted.id;
      const label = b.label ?? `compute${id}`;
      await tx.db
        .updateTable('instances')
        .set({ label, ipv6: this.d.ips.slaac(region.id, id) })
        .where('id', '=', id)
        .execute();
      if (backups) {
        await setBackupsAddon(tx, id, true, now);
        await scheduleAutomaticBackups(tx, this.d.queue, id, p.accountId);
      }
      await authz.grantCreator(tx, p, 'compute', id);
      if (interfaces) {
        // VPC addresses are chosen with the subnets locked, inside the create's transaction.
        const vfe = new FieldErrors();
        await (await vpcInterfaceChecker(tx, p.accountId, legacy)).complete(
          vfe,
          listField('interfaces'),
          interfaces,
          { accountId: p.accountId, instanceId: id, region: region.id, creating: true },
        );
        vfe.throwIfAny();
      }
      if (b.firewall_id !== undefined && this.d.firewalls)
        await this.d.firewalls.assignOnCreate(tx, p, b.firewall_id, id);
      // No firewall named: the account's default instance firewall, if it has one (an instance
      // of the compute generation has its interfaces' defaults instead).
      else if (generation !== 'compute')
        await this.d.firewalls?.assignDefaultOnCreate(tx, p, id, 'compute');
      if (b.placement_group != null && this.d.placement)
        await this.d.placement.joinAtCreate(tx, p, b.placement_group, { id, label });
      if (stackscript) await recordDeployment(tx, stackscript, id, p.accountId, now);
      if (b.tags) await setTags(tx, p.accountId, 'compute', id, b.tags);

      if (wantsReserved) {
        const r = await reservedForCreate(tx, p, b.ipv4 ?? [], region.id, true);
        if ('reason' in r) throw errors.invalidField('ipv4', r.reason);
        await tx.db
          .updateTable('ip_addresses')
          .set({ instance_id: id, rdns: null })
          .where('id', '=', r.row.id)
          .execute();
        await billInstance(tx, id, now);
        await this.d.events.record(tx, {
          accountId: p.accountId,
          action: 'reserved_ip_assign',
          entity: ipRef(r.row.address, r.row.id),
          secondaryEntity: entityRefs.compute(id, label),
          status: 'notification',
          username: p.username,
        });
      } else {
        const pub = await this.d.ips.next(tx, region.id, 'public');
        await insertIp(
          tx,
          { accountId: p.accountId, instanceId: id, region: region.id, kind: 'public', ip: pub },
          now,
        );
      }
      if (b.private_ip) {
        const priv = await this.d.ips.next(tx, region.id, 'private');
        await insertIp(
          tx,
          { accountId: p.accountId, instanceId: id, region: region.id, kind: 'private', ip: priv },
          now,
        );
      }

      if (generation === 'compute' && b.interfaces && b.interfaces.length > 0) {
        // The instance's own interfaces, once its addresses exist (a public one shows them).
        const row = (await findInstance(tx, p.accountId, id)) as InstanceRow;
        await computeIfaces.insertAll(tx, row, b.interfaces, (f, n) => `interfaces.${n}.${f}`);
      }

      let configId: number | null = null;
      if (backup) {
        // Disks and configs as the backup holds them (`not ready` until provisioned).
        configId = await writeContents(tx, backup, id, p.accountId, now, (diskId, key) =>
          recordDiskSource(
            tx,
            this.d.machines,
            { diskId, instanceId: id, accountId: p.accountId },
            { kind: 'backup', backupId: b.backup_id as number, key },
          ),
        );
        await tx.db
          .updateTable('instances')
          .set({ image: backup.image })
          .where('id', '=', id)
          .execute();
      }
      if (image) {
        const fs = catalogue.imageExtras(image.id)?.filesystem ?? 'ext4';
        const minDisk = catalogue.imageExtras(image.id)?.min_disk_mb ?? image.size;
        const bootDisk = await insertDisk(
          tx,
          {
            instanceId: id,
            accountId: p.accountId,
            label: `${image.label} Disk`,
            size: type.disk - swap,
            filesystem: fs,
            image: image.id,
            usedMb: minDisk,
            status: 'not ready',
          },
          now,
        );
        const devices = emptyDevices();
        devices.sda = { disk_id: bootDisk };
        if (swap > 0) {
          const swapDisk = await insertDisk(
            tx,
            {
              instanceId: id,
              accountId: p.accountId,
              label: `${swap} MB Swap Image`,
              size: swap,
              filesystem: 'swap',
              image: null,
              usedMb: swap,
              status: 'not ready',
            },
            now,
          );
          devices.sdb = { disk_id: swapDisk };
        }
        configId = await insertConfig(
          tx,
          {
            instanceId: id,
            accountId: p.accountId,
            label: `My ${image.label} Disk Profile`,
            kernel: 'compute/latest-64bit',
            comments: '',
            memoryLimit: 0,
            runLevel: 'default',
            virtMode: 'paravirt',
            rootDevice: '/dev/sda',
            helpers: DEFAULT_HELPERS,
            devices,
          },
          now,
        );
        if (interfaces) await replaceInterfaces(tx, configId, id, interfaces);
        await recordSeed(
          tx,
          this.d.machines,
          { instanceId: id, accountId: p.accountId },
          { rootPass: b.root_pass, authorizedKeys: keys, userData },
          now,
        );
      }

      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'compute_create',
        entity: entityRefs.compute(id, label),
        // The image deployed, as the real wire names it (none for a backup or an empty instance).
        secondaryEntity: image ? imageEntity(image.id, image.label) : null,
        status: 'scheduled',
        username: p.username,
      });
      await this.d.queue.enqueue(
        tx,
        lifecycleJob,
        {
          instanceId: id,
          accountId: p.accountId,
          op: 'provision',
          eventId,
          step: 0,
          configId,
          thenBoot: booted && configId !== null,
          username: p.username,
        },
        { accountId: p.accountId, entity: { type: 'compute', id } },
      );
      const row = await findInstance(tx, p.accountId, id);
      return this.one(tx, row as InstanceRow);
    });
  }

  private async assertLabelFree(
    db: Database,
    accountId: number,
    label: string,
    exceptId?: number,
  ): Promise<void> {
    let q = db.db
      .selectFrom('instances')
      .select('id')
      .where('account_id', '=', accountId)
      .where('label', '=', label);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst())
      throw errors.invalidField('label', 'Label must be unique among your compute instances');
  }

  /** Update: label, group, tags, watchdog, alerts and the backup schedule. */
  async update(p: Principal, id: number, b: UpdateBody): Promise<ApiInstance> {
    if (b.tags !== undefined && p.restricted) throw errors.unauthorized();
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      const fe = new FieldErrors();
      if (b.label !== undefined) {
        const lp = instanceLabelProblem(b.label);
        if (lp) fe.add('label', lp);
      }
      checkTags(fe, b.tags);
      checkMaintenancePolicy(fe, b.maintenance_policy);
      const type = this.d.catalogue.type(row.type);
      const maxCpu = 100 * (type?.vcpus ?? 1);
      if (b.alerts?.cpu !== undefined && b.alerts.cpu > maxCpu)
        fe.add('alerts.cpu', `cpu must be between 0 and ${maxCpu}`);
      fe.throwIfAny();
      if (b.label !== undefined && b.label !== row.label)
        await this.assertLabelFree(tx, p.accountId, b.label, id);

      const alerts = {
        ...parseJson(row.alerts, defaultAlerts(type?.vcpus ?? 1)),
        ...(b.alerts ?? {}),
      };
      const schedule = b.backups?.schedule;
      await tx.db
        .updateTable('instances')
        .set({
          ...(b.label !== undefined ? { label: b.label } : {}),
          ...(b.group !== undefined ? { group_label: b.group } : {}),
          ...(b.watchdog_enabled !== undefined
            ? { watchdog_enabled: b.watchdog_enabled ? 1 : 0 }
            : {}),
          ...(b.maintenance_policy !== undefined
            ? { maintenance_policy: b.maintenance_policy }
            : {}),
          ...(schedule?.day !== undefined ? { backups_day: schedule.day } : {}),
          ...(schedule?.window !== undefined ? { backups_window: schedule.window } : {}),
          alerts: JSON.stringify(alerts),
          updated: this.now(),
        })
        .where('id', '=', id)
        .execute();
      if (b.tags !== undefined) await setTags(tx, p.accountId, 'compute', id, b.tags);
      if (schedule !== undefined) await rescheduleAutomaticBackups(tx, this.d.clock.nowMs(), id);
      const label = b.label ?? row.label;
      await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'compute_update',
        entity: entityRefs.compute(id, label),
        status: 'notification',
        username: p.username,
      });
      return this.one(tx, (await findInstance(tx, p.accountId, id)) as InstanceRow);
    });
  }

  /** Delete: refused while cloning or restoring (or busy); the job releases everything. */
  async delete(p: Principal, id: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, 'read_write', true);
      if (row.status === 'cloning' || row.status === 'restoring') {
        throw errors.reason(`Compute cannot be deleted while ${row.status}.`, 'busy');
      }
      if (row.status === 'deleting') throw errors.busy('Compute');
      await refuseIfLocked(tx, 'compute', id, 'delete');
      // Work under way on the instance (a boot, say) sees `deleting` and stops at its next step.
      await tx.db
        .updateTable('instances')
        .set({ status: 'deleting', updated: this.now() })
        .where('id', '=', id)
        .execute();
      const eventId = await this.d.events.record(tx, {
        accountId: p.accountId,
        action: 'compute_delete',
        entity: entityRefs.compute(id, row.label),
        status: 'scheduled',
        username: p.username,
      });
      await this.d.queue.enqueue(
        tx,
        deleteJob,
        { instanceId: id, accountId: p.accountId, eventId, step: 0 },
        {
          accountId: p.accountId,
          entity: { type: 'compute', id },
        },
      );
    });
  }
}

/**
 * `maintenance_policy` of a create or an update: one of the real service's policies; the real
 * service's words for anything else (the wire).
 */
function checkMaintenancePolicy(fe: FieldErrors, v: string | undefined): void {
  const reason = v === undefined ? undefined : maintenancePolicyError(v);
  if (reason) fe.add('maintenance_policy', reason);
}

const NEW_GENERATION_FIELDS = ['public', 'vpc', 'vlan', 'firewall_id', 'default_route'] as const;

/**
 * The create's `interface_generation`, as the account's `interfaces_for_new_computes` allows it
 * (its default when omitted), and the shape of each of `interfaces` for that generation.
 */
function interfaceGeneration(
  fe: FieldErrors,
  b: CreateBody,
  setting: string | undefined,
): 'legacy_config' | 'compute' {
  const s = setting ?? 'legacy_config_default_but_compute_allowed';
  const generation =
    (b.interface_generation as 'legacy_config' | 'compute' | undefined) ??
    (s.startsWith('compute') ? 'compute' : 'legacy_config');
  if (generation === 'compute' && s === 'legacy_config_only')
    fe.add(
      'interface_generation',
      'The account allows only configuration profile interfaces (legacy_config) for new instances',
    );
  if (generation === 'legacy_config' && s === 'compute_only')
    fe.add(
      'interface_generation',
      'The account allows only interfaces of the compute generation for new instances',
    );
  for (const [n, i] of (b.interfaces ?? []).entries()) {
    const modern = NEW_GENERATION_FIELDS.filter((k) => i[k] !== undefined && i[k] !== null);
    if (generation === 'legacy_config') {
      if (modern.length > 0)
        fe.add(
          `interfaces.${n}.${modern[0]}`,
          'Only interfaces of the compute generation (interface_generation compute) take this field',
        );
      else if (i.purpose === undefined) fe.add(`interfaces.${n}.purpose`, 'purpose is required');
    } else if (i.purpose !== undefined) {
      fe.add(
        `interfaces.${n}.purpose`,
        'Interfaces of the compute generation give public, vpc or vlan instead of purpose',
      );
    }
  }
  if (generation === 'compute' && b.firewall_id !== undefined && b.firewall_id !== null)
    fe.add(
      'firewall_id',
      'An instance with interfaces of the compute generation takes firewall_id on each interface',
    );
  return generation;
}
