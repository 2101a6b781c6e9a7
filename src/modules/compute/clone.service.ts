import type { Static } from '@sinclair/typebox';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import type { IpAllocator } from '../networking/ip-allocator.js';
import { setTags, tagsOf } from '../tags/tags.repository.js';
import {
  allocatedDiskMb,
  type ApiInstance,
  findInstance,
  type InstanceRow,
  insertIp,
  newHostUuid,
  toApiInstances,
  DISK_ENCRYPTION,
} from './compute.repository.js';
import { defaultAlerts, instanceLabelProblem, userDataProblem } from './compute.rules.js';
import { copySelection, selectForClone, selectionMb } from './clone.copy.js';
import { activeClones, MAX_CONCURRENT_CLONES } from './clone.effects.js';
import type { InstancesService } from './instances.service.js';
import { IDLE_STATUSES } from './instances.service.js';
import type { CloneBody } from './ops.schemas.js';
import { setBackupsAddon } from './plan-changes.js';
import { scheduleAutomaticBackups } from './backups.jobs.js';
import { BACKUPS, type OpDeps, regionRefusals, startOp, typeAvailableIn } from './ops.start.js';
import type { PlacementService } from '../placement/placement.service.js';
import { recordDiskSource } from './machines.seam.js';
import {
  type ComputeInterfacesService,
  type CreateInput,
  interfacesOfInstance,
} from './compute-interfaces.service.js';
import { type InterfaceIpv6, readInterfaceIpv6 } from '../vpcs/vpc-ipv6.rules.js';

type Body = Static<typeof CloneBody>;

/** A clone's VPC interface IPv6 request: the source's shape, with new /64s (undefined: default). */
const cloneIpv6 = (v: InterfaceIpv6 | null) =>
  v === null
    ? undefined
    : {
        slaac: v.slaac.map(() => ({ range: 'auto' })),
        ranges: v.ranges.map(() => ({ range: '/64' })),
        is_public: v.is_public,
      };

const CLONE_VPC_REGION =
  'A compute instance with a VPC interface can only be cloned within the region of its VPC';

export const TOO_MANY_CLONES = `At most ${MAX_CONCURRENT_CLONES} clones of one compute instance can run at once.`;

/**
 * Clone to a new instance or to an existing idle target. The source shows `cloning` while any of
 * its clones runs (at most 5 at once); the target is `provisioning` until its copy is done.
 */
export class CloneService {
  constructor(
    private readonly d: OpDeps & {
      catalogue: CatalogueService;
      ips: IpAllocator;
      placement?: PlacementService;
      /** The new generation's interfaces, which a clone of such an instance gets its own of. */
      computeInterfaces?: ComputeInterfacesService;
    },
    private readonly instances: InstancesService,
  ) {}

  async clone(p: Principal, sourceId: number, b: Body): Promise<ApiInstance> {
    authz.requireGlobal(p, 'add_computes');
    return this.d.db.transaction(async (tx) => {
      const src = await this.instances.load(tx, p, sourceId, 'read_write', true);
      const existing = b.compute_id !== undefined;
      const fe = new FieldErrors();
      if (existing) {
        for (const f of ['region', 'type', 'label', 'private_ip'] as const)
          if (b[f] !== undefined) fe.add(f, `${f} is only for a new instance`);
        if (b.metadata?.user_data !== undefined)
          fe.add('metadata.user_data', 'user_data cannot be given for an existing target');
        if (b.placement_group != null)
          fe.add('placement_group', 'placement_group is only for a new instance');
      } else {
        this.checkNew(fe, src, b);
        await this.checkOwnInterfaces(tx, fe, src, b);
        if (b.placement_group != null && !this.d.placement)
          fe.add('placement_group.id', 'Placement group not found.');
        await this.d.placement?.check(tx, p, fe, b.placement_group ?? undefined, b.region);
      }
      const sel = await selectForClone(tx, src.id, b.configs, b.disks);
      if ('field' in sel) fe.add(sel.field, sel.reason);
      fe.throwIfAny();
      if ('field' in sel) throw errors.internal();

      // The source may be cloned while running, offline or already cloning; nothing else.
      const sourceBusy =
        !(IDLE_STATUSES.has(src.status) || src.status === 'cloning') ||
        (await this.d.queue.hasActive(tx, 'compute', src.id));
      if (sourceBusy) throw errors.busy('Compute');
      await this.instances.assertDisksIdle(tx, src);
      if ((await activeClones(tx, src.id)) >= MAX_CONCURRENT_CLONES)
        throw errors.reason(TOO_MANY_CLONES);

      const needMb = await selectionMb(tx, sel.diskIds);
      const now = isoSeconds(this.d.clock.nowMs());
      let target: InstanceRow;
      if (b.compute_id !== undefined) {
        target = await this.existingTarget(tx, p, b.compute_id, src, needMb);
      } else {
        target = await this.newTarget(tx, p, src, b, needMb, now);
      }
      if (b.compute_id === undefined && src.interface_generation === 'compute')
        await this.copyOwnInterfaces(tx, src, target);
      await copySelection(tx, sel, target, p.accountId, now, (diskId, fromDiskId) =>
        recordDiskSource(
          tx,
          this.d.machines,
          { diskId, instanceId: target.id, accountId: p.accountId },
          { kind: 'disk', from: { instanceId: src.id, region: src.region, diskId: fromDiskId } },
        ),
      );
      await tx.db
        .insertInto('instance_clones')
        .values({
          account_id: p.accountId,
          source_id: src.id,
          target_id: target.id,
          created_ms: this.d.clock.nowMs(),
        })
        .execute();
      if (src.status !== 'cloning') {
        await tx.db
          .updateTable('instances')
          .set({ status: 'cloning', resume_status: src.status, updated: now })
          .where('id', '=', src.id)
          .execute();
      }
      await startOp(this.d, tx, p, target, {
        op: 'clone',
        action: 'compute_clone',
        ...(existing ? {} : { createAction: 'compute_create' }),
        entity: { id: src.id, label: src.label },
        secondary: { id: target.id, label: target.label },
        sourceId: src.id,
      });
      const row = (await findInstance(tx, p.accountId, target.id)) as InstanceRow;
      const [api] = await toApiInstances(tx, this.d.catalogue, [row]);
      return api as ApiInstance;
    });
  }

  /**
   * A source of the new interface generation: its VPC interfaces stay in their subnets, so the
   * clone stays in the source's region when it has one.
   */
  private async checkOwnInterfaces(
    tx: Database,
    fe: FieldErrors,
    src: InstanceRow,
    b: Body,
  ): Promise<void> {
    if (src.interface_generation !== 'compute' || b.region === undefined) return;
    if (b.region === src.region) return;
    const rows = await interfacesOfInstance(tx, src.id);
    if (rows.some((r) => r.purpose === 'vpc')) fe.add('region', CLONE_VPC_REGION);
  }

  /**
   * The new instance of a clone of a new-generation source gets interfaces of its own, of the
   * same kinds in the same order: public (with the clone's own new addresses), VPC in the same
   * subnet (a new address of it; a 1:1 NAT again mapped to the clone's public address), VLAN
   * with the same label (no IPAM address: the source's is taken on that VLAN). Each keeps its
   * source's default routes and firewall; IPv4 ranges routed to the source stay the source's.
   */
  private async copyOwnInterfaces(
    tx: Database,
    src: InstanceRow,
    target: InstanceRow,
  ): Promise<void> {
    const svc = this.d.computeInterfaces;
    if (!svc) throw errors.internal();
    const rows = await interfacesOfInstance(tx, src.id);
    if (rows.length === 0) return;
    const fws = await tx.db
      .selectFrom('firewall_devices')
      .select(['firewall_id', 'entity_id'])
      .where('entity_type', '=', 'compute_interface')
      .where(
        'entity_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    const firewallOf = new Map(fws.map((f) => [f.entity_id, f.firewall_id]));
    const list: CreateInput[] = rows.map((r) => {
      if (r.purpose === 'vlan')
        return { vlan: { vlan_label: r.vlan_label as string, ipam_address: null } };
      const firewall_id = firewallOf.get(r.id) ?? null;
      if (r.purpose === 'public')
        return {
          firewall_id,
          default_route: { ipv4: toBool(r.default_ipv4), ipv6: toBool(r.default_ipv6) },
          public: {},
        };
      return {
        firewall_id,
        default_route: { ipv4: toBool(r.default_ipv4), ipv6: toBool(r.default_ipv6) },
        vpc: {
          subnet_id: r.subnet_id as number,
          ipv4: {
            addresses: [
              { address: 'auto', primary: true, nat_1_1_address: r.ipv4_nat_1_1 ? 'auto' : null },
            ],
          },
          // As many SLAAC and routed /64s as the source's, new ones of the subnet.
          ipv6: cloneIpv6(readInterfaceIpv6(r.ipv6)),
        },
      };
    });
    await svc.insertAll(tx, target, list, (f, n) => `interfaces.${n}.${f}`);
  }

  private checkNew(fe: FieldErrors, src: InstanceRow, b: Body): void {
    const { catalogue } = this.d;
    if (b.region === undefined) fe.add('region', 'region is required for a new instance');
    if (b.type === undefined) fe.add('type', 'type is required for a new instance');
    const region = b.region === undefined ? undefined : catalogue.region(b.region);
    const type = b.type === undefined ? undefined : catalogue.type(b.type);
    if (b.region !== undefined && !region?.capabilities.includes('Computes'))
      fe.add('region', 'region is not valid');
    if (b.type !== undefined && !type) fe.add('type', 'A valid plan type by that ID was not found');
    if (region && type && !typeAvailableIn(region, type))
      fe.add('type', 'This type is not available in this region');
    if (region?.capabilities.includes('Computes'))
      for (const [field, reason] of regionRefusals(region, b)) fe.add(field, reason);
    if (b.label !== undefined) {
      const lp = instanceLabelProblem(b.label);
      if (lp) fe.add('label', lp);
    }
    const userData = b.metadata?.user_data;
    if (userData === undefined) {
      if (toBool(src.has_user_data))
        fe.add('metadata.user_data', 'user_data is required: the source instance has user data');
    } else {
      const up = userDataProblem(userData);
      if (up) fe.add('metadata.user_data', up);
      else if (region && !region.capabilities.includes('Metadata'))
        fe.add('metadata.user_data', 'This region does not support metadata (cloud-init)');
    }
  }

  /** An existing target: another instance of the account, idle, with room for the disks. */
  private async existingTarget(
    tx: Database,
    p: Principal,
    id: number,
    src: InstanceRow,
    needMb: number,
  ): Promise<InstanceRow> {
    if (id === src.id)
      throw errors.invalidField('compute_id', 'A compute instance cannot be cloned onto itself');
    const target = await findInstance(tx, p.accountId, id, true);
    if (!target) throw errors.invalidField('compute_id', 'Compute not found');
    await authz.requireEntity(tx, p, 'compute', id, 'read_write');
    await this.instances.assertIdle(tx, target);
    await this.instances.assertDisksIdle(tx, target);
    const type = this.d.catalogue.type(target.type);
    const free = (type?.disk ?? 0) - (await allocatedDiskMb(tx, target.id));
    if (needMb > free)
      throw errors.invalidField(
        'compute_id',
        'The target does not have enough free disk space for the clone',
      );
    return target;
  }

  private async newTarget(
    tx: Database,
    p: Principal,
    src: InstanceRow,
    b: Body,
    needMb: number,
    now: string,
  ): Promise<InstanceRow> {
    const { catalogue, ips } = this.d;
    const type = catalogue.type(b.type as string);
    const region = b.region as string;
    if (!type) throw errors.internal();
    if (needMb > type.disk)
      throw errors.invalidField('type', 'The type is too small for the disks being cloned');
    if (b.label !== undefined) {
      const taken = await tx.db
        .selectFrom('instances')
        .select('id')
        .where('account_id', '=', p.accountId)
        .where('label', '=', b.label)
        .executeTakeFirst();
      if (taken)
        throw errors.invalidField('label', 'Label must be unique among your compute instances');
    }
    const account = await tx.db
      .selectFrom('accounts')
      .select('backups_enabled')
      .where('id', '=', p.accountId)
      .executeTakeFirstOrThrow();
    const backups =
      (toBool(account.backups_enabled) && catalogue.regionHas(region, BACKUPS)) ||
      (b.backups_enabled ?? false);
    const { id } = await tx.db
      .insertInto('instances')
      .values({
        account_id: p.accountId,
        label: b.label ?? `compute-tmp-${newHostUuid()}`,
        region,
        type: type.id,
        image: src.image,
        status: 'provisioning',
        group_label: b.group ?? src.group_label,
        host_uuid: newHostUuid(),
        watchdog_enabled: 1,
        alerts: JSON.stringify(defaultAlerts(type.vcpus)),
        backups_enabled: 0,
        backups_day: null,
        backups_window: null,
        backups_last_successful: null,
        has_user_data: b.metadata?.user_data !== undefined ? 1 : 0,
        ipv6: null,
        last_booted_config_id: null,
        pending_migration: null,
        resume_status: null,
        // The clone has its source's interface generation (the provider's web manager leaves
        // it to the API when cloning).
        interface_generation: src.interface_generation,
        interfaces_network_helper: src.interfaces_network_helper ?? 0,
        // The copies keep the source's encryption where the target region offers it.
        // A distributed site encrypts every instance.
        disk_encryption:
          catalogue.region(region)?.site_type === 'distributed'
            ? 'enabled'
            : catalogue.regionHas(region, DISK_ENCRYPTION)
              ? (src.disk_encryption ?? 'disabled')
              : 'disabled',
        created: now,
        updated: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx.db
      .updateTable('instances')
      .set({ label: b.label ?? `compute${id}`, ipv6: ips.slaac(region, id) })
      .where('id', '=', id)
      .execute();
    if (backups) {
      await setBackupsAddon(tx, id, true, now);
      await scheduleAutomaticBackups(tx, this.d.queue, id, p.accountId);
    }
    await authz.grantCreator(tx, p, 'compute', id);
    const tags = (await tagsOf(tx, 'compute', [src.id])).get(src.id) ?? [];
    if (tags.length > 0) await setTags(tx, p.accountId, 'compute', id, tags);
    const pub = await ips.next(tx, region, 'public');
    await insertIp(
      tx,
      { accountId: p.accountId, instanceId: id, region, kind: 'public', ip: pub },
      now,
    );
    if (b.private_ip) {
      const priv = await ips.next(tx, region, 'private');
      await insertIp(
        tx,
        { accountId: p.accountId, instanceId: id, region, kind: 'private', ip: priv },
        now,
      );
    }
    if (b.placement_group != null && this.d.placement)
      await this.d.placement.joinAtCreate(tx, p, b.placement_group, {
        id,
        label: b.label ?? `compute${id}`,
      });
    return (await findInstance(tx, p.accountId, id)) as InstanceRow;
  }
}
