import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';

export interface ApiVlan {
  label: string;
  region: string;
  computes: number[];
  created: string;
}

const VLAN_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'v.label' },
  region: { kind: 'string', column: 'v.region' },
};

/**
 * VLANs exist through the vlan interfaces of instances' configuration profiles: one VLAN per
 * (region, label) of the account, in regions that offer VLANs. `created` is the creation time
 * of the oldest profile that names it.
 */
export class VlansService {
  constructor(
    private readonly db: Database,
    /** Regions that offer VLANs (capability `Vlans`). */
    private readonly regions: readonly string[],
  ) {}

  private members(p: Principal) {
    let q = this.db.db
      .selectFrom('config_interfaces as ci')
      .innerJoin('configs as c', 'c.id', 'ci.config_id')
      .innerJoin('instances as i', 'i.id', 'ci.instance_id')
      .where('i.account_id', '=', p.accountId)
      .where('ci.purpose', '=', 'vlan')
      .where('ci.label', 'is not', null);
    const vis = authz.visible(p, 'compute', 'i.id');
    if (vis) q = q.where(vis);
    return q.where('i.region', 'in', this.regions.length > 0 ? [...this.regions] : ['-']);
  }

  async list(
    p: Principal,
    params: PageParams,
    xf: string | string[] | undefined,
  ): Promise<Page<ApiVlan>> {
    const grouped = this.members(p)
      .select((eb) => [
        eb.ref('ci.label').as('label'),
        eb.ref('i.region').as('region'),
        eb.fn.min('c.created').as('created'),
      ])
      .groupBy(['ci.label', 'i.region']);
    const page = await paginate(
      this.db.db.selectFrom(grouped.as('v')),
      (qb) => qb.select(['v.label', 'v.region', 'v.created']),
      compileFilter(xf, VLAN_FILTERS, this.db.dialect),
      params,
      { idColumn: ['v.region', 'v.label'] },
      (r: { label: string | null; region: string; created: string }) => r,
    );
    const rows =
      page.data.length === 0
        ? []
        : await this.members(p)
            .select(['ci.label', 'i.region', 'i.id'])
            .distinct()
            .orderBy('i.id')
            .execute();
    const computes = (label: string, region: string) =>
      rows.filter((r) => r.label === label && r.region === region).map((r) => r.id);
    return {
      ...page,
      data: page.data.map((v) => ({
        label: v.label ?? '',
        region: v.region,
        computes: computes(v.label ?? '', v.region),
        created: v.created,
      })),
    };
  }
}
