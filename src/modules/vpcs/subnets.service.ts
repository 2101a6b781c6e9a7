import type { Principal } from '../../auth/principal.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { checkSubnets } from './subnets.rules.js';
import { recordVpcEvent } from './vpcs.events.js';
import {
  type ApiSubnet,
  customRanges,
  findSubnet,
  SUBNET_FILTERS,
  type SubnetRow,
  subnetsInUse,
  subnetRanges,
  subnetsOf,
  toApiSubnets,
} from './vpcs.repository.js';
import { allocate, checkSubnetIpv6, formatNet6, parseNet6 } from './vpc-ipv6.rules.js';
import { labelProblem } from './vpcs.rules.js';
import type { CreateSubnet } from './vpcs.schemas.js';
import {
  refuseIfNodeBalancerIn,
  SUBNET_IN_USE,
  SUBNET_V6_FULL,
  SUBNET_V6_TAKEN,
  type VpcsService,
} from './vpcs.service.js';

type XFilter = string | string[] | undefined;

/**
 * Subnets of a VPC. Writes lock the VPC's row first (PostgreSQL; SQLite has one writer), so
 * concurrent creates in one VPC are checked one after the other and never overlap.
 */
export class SubnetsService {
  constructor(private readonly vpcs: VpcsService) {}

  private get db() {
    return this.vpcs.d.db;
  }

  private async one(vpcId: number, id: number, db = this.db): Promise<ApiSubnet> {
    const row = await findSubnet(db, vpcId, id);
    if (!row) throw errors.notFound();
    return (await toApiSubnets(db, [row]))[0] as ApiSubnet;
  }

  async list(
    p: Principal,
    vpcId: number,
    params: PageParams,
    xf: XFilter,
  ): Promise<Page<ApiSubnet>> {
    const { db } = this;
    await this.vpcs.load(db, p, vpcId, 'read_only');
    const page = await paginate(
      db.db.selectFrom('vpc_subnets').where('vpc_subnets.vpc_id', '=', vpcId),
      (qb) => qb.selectAll('vpc_subnets'),
      compileFilter(xf, SUBNET_FILTERS, db.dialect),
      params,
      { idColumn: 'vpc_subnets.id' },
      (r: SubnetRow) => r,
    );
    return { ...page, data: await toApiSubnets(db, page.data) };
  }

  async get(p: Principal, vpcId: number, id: number): Promise<ApiSubnet> {
    await this.vpcs.load(this.db, p, vpcId, 'read_only');
    return this.one(vpcId, id);
  }

  async create(p: Principal, vpcId: number, b: CreateSubnet): Promise<ApiSubnet> {
    return this.db.transaction(async (tx) => {
      const vpc = await this.vpcs.load(tx, p, vpcId, 'read_write', true);
      const existing = (await subnetsOf(tx, [vpcId])).get(vpcId) ?? [];
      const fe = new FieldErrors();
      const [checked] = checkSubnets(fe, [b], existing, (_n, f) => f, customRanges(vpc));
      const v6Range = vpc.ipv6 === null ? undefined : parseNet6(vpc.ipv6);
      const v6 = checkSubnetIpv6(fe, (f) => f, b.ipv6, v6Range);
      let ipv6: string | null = null;
      if (v6 && v6Range) {
        const got = allocate(v6Range, v6, subnetRanges(existing));
        if (got === 'taken') fe.add('ipv6[0].range', SUBNET_V6_TAKEN);
        else if (got === 'full') fe.add('ipv6[0].range', SUBNET_V6_FULL);
        else ipv6 = formatNet6(got);
      }
      fe.throwIfAny();
      if (!checked) throw errors.internal();
      const id = await this.vpcs.insertSubnet(tx, p, vpc, checked, ipv6);
      await this.touch(tx, vpcId);
      return this.one(vpcId, id, tx);
    });
  }

  async update(
    p: Principal,
    vpcId: number,
    id: number,
    b: { label?: string | undefined },
  ): Promise<ApiSubnet> {
    return this.db.transaction(async (tx) => {
      const vpc = await this.vpcs.load(tx, p, vpcId, 'read_write', true);
      const row = await findSubnet(tx, vpcId, id, true);
      if (!row) throw errors.notFound();
      if (b.label !== undefined) {
        const lp = labelProblem(b.label);
        if (lp) throw errors.invalidField('label', lp);
        const clash = ((await subnetsOf(tx, [vpcId])).get(vpcId) ?? []).some(
          (s) => s.id !== id && s.label === b.label,
        );
        if (clash)
          throw errors.invalidField('label', 'Label must be unique among the VPC\u2019s subnets');
        await tx.db
          .updateTable('vpc_subnets')
          .set({ label: b.label, updated: this.vpcs.now() })
          .where('id', '=', id)
          .execute();
      }
      await recordVpcEvent(this.vpcs.d.events, tx, p, 'subnet_update', vpc, {
        id,
        label: b.label ?? row.label,
      });
      return this.one(vpcId, id, tx);
    });
  }

  /** Delete: refused while an interface (of any profile) or a NodeBalancer uses the subnet. */
  async delete(p: Principal, vpcId: number, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const vpc = await this.vpcs.load(tx, p, vpcId, 'read_write', true);
      const row = await findSubnet(tx, vpcId, id, true);
      if (!row) throw errors.notFound();
      if ((await subnetsInUse(tx, [id])).size > 0) throw errors.reason(SUBNET_IN_USE);
      await refuseIfNodeBalancerIn(tx, [id]);
      await tx.db.deleteFrom('vpc_subnets').where('id', '=', id).execute();
      await this.touch(tx, vpcId);
      await recordVpcEvent(this.vpcs.d.events, tx, p, 'subnet_delete', vpc, row);
    });
  }

  private async touch(tx: Parameters<VpcsService['insertSubnet']>[0], vpcId: number) {
    await tx.db
      .updateTable('vpcs')
      .set({ updated: this.vpcs.now() })
      .where('id', '=', vpcId)
      .execute();
  }
}
