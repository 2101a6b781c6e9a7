import type { Static } from '@sinclair/typebox';
import type { Principal } from '../../auth/principal.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { isoSeconds } from '../../lib/time.js';
import type { InstanceType, Region } from '../catalogue/catalogue.data.js';
import { type InstanceRow, insertIp } from './compute.repository.js';
import type { InstancesService } from './instances.service.js';
import type { PendingMigration } from './ops.effects.js';
import type { MigrateBody } from './ops.schemas.js';
import { type OpsDeps, PENDING_MIGRATION } from './ops.service.js';
import { type OpDeps, startOp, typeAvailableIn } from './ops.start.js';
import type { PlacementService } from '../placement/placement.service.js';

/**
 * Why a migration cannot `upgrade` (spec: 400, and nothing migrates): the type has no free
 * upgrade (no successor), or the target region does not offer the successor.
 */
export function upgradeRefusal(
  next: InstanceType | undefined,
  where: Region | undefined,
): string | undefined {
  if (!next) return 'No free upgrade is available for this type';
  if (!where || !typeAvailableIn(where, next))
    return 'The target region does not allow this upgrade';
  return undefined;
}

/** Host and data-center migrations. */
export class MigrateService {
  constructor(
    private readonly d: OpsDeps & { placement?: PlacementService },
    private readonly instances: InstancesService,
  ) {}

  /**
   * Migrate: without `region` (or with the instance's own region) a host migration; with another
   * region a data-center move (no warm, no vpc interface, no VLAN across network generations).
   * `upgrade` needs a free upgrade the target region offers. A queued migration blocks another.
   */
  async migrate(p: Principal, id: number, b: Static<typeof MigrateBody>): Promise<void> {
    const { catalogue } = this.d;
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instances.load(tx, p, id, 'read_write', true);
      if (inst.pending_migration !== null) throw errors.reason(PENDING_MIGRATION);
      const warm = (b.type ?? 'cold') === 'warm';
      const fe = new FieldErrors();
      // The instance's own region is a host migration (to another host there, into
      // `placement_group` when one is given), as the real service takes it.
      const elsewhere = b.region !== undefined && b.region !== inst.region ? b.region : undefined;
      const target = elsewhere === undefined ? undefined : catalogue.region(elsewhere);
      if (elsewhere !== undefined) {
        if (!target?.capabilities.includes('Computes')) fe.add('region', 'region is not valid');
        if (warm) fe.add('type', 'Warm migrations are not available for data center moves');
      }
      fe.throwIfAny();
      let upgradeTo: string | undefined;
      if (b.upgrade) {
        const successor = catalogue.type(inst.type)?.successor ?? null;
        const next = successor === null ? undefined : catalogue.type(successor);
        const where = catalogue.region(target?.id ?? inst.region);
        const refusal = upgradeRefusal(next, where);
        if (refusal || !next) throw errors.invalidField('upgrade', refusal ?? 'upgrade');
        upgradeTo = next.id;
      }
      const current = catalogue.type(inst.type);
      if (target && current && !typeAvailableIn(target, current) && !upgradeTo)
        throw errors.invalidField('region', 'The instance\u2019s type is not available there');
      if (target) await this.assertCanChangeDatacenter(tx, inst, target.id);
      if (b.placement_group != null) {
        if (!this.d.placement)
          throw errors.invalidField('placement_group.id', 'Placement group not found.');
        await this.d.placement.checkMigration(
          tx,
          p,
          b.placement_group,
          inst,
          target?.id ?? inst.region,
        );
      }
      await this.instances.assertIdle(tx, inst);
      await this.instances.assertDisksIdle(tx, inst);

      const pending: PendingMigration = { kind: target ? 'datacenter' : 'host' };
      if (b.placement_group != null) pending.placementGroupId = b.placement_group.id;
      if (upgradeTo) pending.type = upgradeTo;
      if (target) {
        pending.region = target.id;
        pending.ipIds = await this.reserveAddresses(tx, inst, target.id);
        pending.ipv6 = this.d.ips.slaac(target.id, inst.id);
      }
      await tx.db
        .updateTable('instances')
        .set({ pending_migration: JSON.stringify(pending) })
        .where('id', '=', inst.id)
        .execute();
      await startOp(this.d, tx, p, inst, {
        op: target ? 'migrate_datacenter' : 'migrate',
        action: target ? 'compute_migrate_datacenter' : 'compute_migrate',
        ...(target ? { createAction: 'compute_migrate_datacenter_create' } : {}),
        warm,
        ...(upgradeTo ? { type: upgradeTo } : {}),
      });
    });
  }

  /** Data-center moves are refused for vpc interfaces and VLANs across network generations. */
  private async assertCanChangeDatacenter(
    tx: OpDeps['db'],
    inst: InstanceRow,
    region: string,
  ): Promise<void> {
    const purposes = await tx.db
      .selectFrom('config_interfaces')
      .select('purpose')
      .where('instance_id', '=', inst.id)
      .execute();
    if (purposes.some((r) => r.purpose === 'vpc'))
      throw errors.reason(
        'Compute instances with a vpc interface cannot migrate to another region.',
      );
    // Next-generation network centers are the regions that offer VPCs.
    const nextGen = (r: string) => this.d.catalogue.regionHas(r, 'VPCs');
    if (purposes.some((r) => r.purpose === 'vlan') && nextGen(inst.region) !== nextGen(region)) {
      throw errors.reason(
        'Compute instances attached to a VLAN cannot migrate between legacy and next-generation network centers.',
      );
    }
  }

  /** The target region's addresses, held (unassigned) until the move completes. */
  private async reserveAddresses(
    tx: OpDeps['db'],
    inst: InstanceRow,
    region: string,
  ): Promise<number[]> {
    const now = isoSeconds(this.d.clock.nowMs());
    const current = await tx.db
      .selectFrom('ip_addresses')
      .select('kind')
      .where('instance_id', '=', inst.id)
      .orderBy('id')
      .execute();
    const ids: number[] = [];
    for (const { kind } of current) {
      const ip = await this.d.ips.next(tx, region, kind);
      const row = await insertIp(
        tx,
        { accountId: inst.account_id, instanceId: null, region, kind, ip },
        now,
      );
      ids.push(row.id);
    }
    return ids;
  }
}
