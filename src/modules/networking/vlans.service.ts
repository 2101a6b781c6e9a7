import { type Expression, type SqlBool, sql } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import { type Database, DatabaseSlot } from '../../db/database.js';
import { errors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter, type FilterSpec } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';

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

/** The refusal of a VLAN delete while an interface names the VLAN (the real text is not recorded). */
export const VLAN_ATTACHED =
  'The VLAN is attached to a compute instance: remove its interfaces (and reboot) first.';

/** The clock VLAN records take their `created` from (set by the networking area). */
const VLAN_CLOCK = new DatabaseSlot<{ clock: Clock | undefined }>('vlan-clock');

export function setVlanClock(db: Database, clock: Clock): void {
  db.slot(VLAN_CLOCK, () => ({ clock })).clock = clock;
}

/**
 * Records the VLANs an interface list names, so that each outlives its interfaces until it is
 * deleted (`DELETE /networking/vlans/{region}/{label}`); a VLAN recorded already is kept as it is.
 * Called in the transaction that writes the interfaces (src/modules/vpcs/vpc-interfaces.ts, which
 * every profile-interface write passes through).
 */
export async function rememberVlans(
  db: Database,
  accountId: number,
  region: string,
  labels: readonly string[],
): Promise<void> {
  const unique = [...new Set(labels)];
  if (unique.length === 0) return;
  const clock = db.slot(VLAN_CLOCK, () => ({ clock: undefined as Clock | undefined })).clock;
  if (!clock) throw errors.internal();
  const created = isoSeconds(clock.nowMs());
  await db.db
    .insertInto('vlans')
    .values(unique.map((label) => ({ account_id: accountId, region, label, created })))
    .onConflict((oc) => oc.columns(['account_id', 'region', 'label']).doNothing())
    .execute();
}

/**
 * VLANs of an account: one per (region, label), in regions that offer VLANs. A VLAN comes into
 * being when an interface (of a configuration profile, or an instance's own) first names it, and
 * stays after its last interface is gone until it is deleted; a delete is refused while an
 * interface names it. `created` is when it was first recorded (for VLANs older than the record,
 * the creation time of the oldest profile or interface naming it). `computes` lists the
 * instances whose interfaces name it.
 */
export class VlansService {
  constructor(
    private readonly db: Database,
    /** Regions that offer VLANs (capability `Vlans`). */
    private readonly regions: readonly string[],
  ) {}

  private inRegions() {
    return this.regions.length > 0 ? [...this.regions] : ['-'];
  }

  /** Profile interfaces naming a VLAN, as (label, region, created, instance). */
  private profileMembers(accountId: number, p?: Principal) {
    let q = this.db.db
      .selectFrom('config_interfaces as ci')
      .innerJoin('configs as c', 'c.id', 'ci.config_id')
      .innerJoin('instances as i', 'i.id', 'ci.instance_id')
      .where('i.account_id', '=', accountId)
      .where('ci.purpose', '=', 'vlan')
      .where('ci.label', 'is not', null);
    const vis = p ? authz.visible(p, 'compute', 'i.id') : undefined;
    if (vis) q = q.where(vis);
    return q
      .where('i.region', 'in', this.inRegions())
      .select((eb) => [
        eb.ref('ci.label').$castTo<string>().as('label'),
        eb.ref('i.region').as('region'),
        eb.ref('c.created').as('created'),
        eb.ref('i.id').as('compute_id'),
      ]);
  }

  /** Instances' own VLAN interfaces (interface generation `compute`), likewise. */
  private ownMembers(accountId: number, p?: Principal) {
    let q = this.db.db
      .selectFrom('compute_interfaces as ci')
      .innerJoin('instances as i', 'i.id', 'ci.instance_id')
      .where('i.account_id', '=', accountId)
      .where('ci.purpose', '=', 'vlan')
      .where('ci.vlan_label', 'is not', null);
    const vis = p ? authz.visible(p, 'compute', 'i.id') : undefined;
    if (vis) q = q.where(vis);
    return q
      .where('i.region', 'in', this.inRegions())
      .select((eb) => [
        eb.ref('ci.vlan_label').$castTo<string>().as('label'),
        eb.ref('i.region').as('region'),
        eb.ref('ci.created').as('created'),
        eb.ref('i.id').as('compute_id'),
      ]);
  }

  /** Every interface naming a VLAN of the account (those the principal sees, when given). */
  private members(accountId: number, p?: Principal) {
    return this.profileMembers(accountId, p).unionAll(this.ownMembers(accountId, p));
  }

  /** Whether an interface of `members` names the VLAN (label, region) of the outer row `s`. */
  private attached(accountId: number, p?: Principal): Expression<SqlBool> {
    return sql<SqlBool>`exists (select 1 from (${this.members(accountId, p)}) m where m.label = s.label and m.region = s.region)`;
  }

  async list(
    p: Principal,
    params: PageParams,
    xf: string | string[] | undefined,
  ): Promise<Page<ApiVlan>> {
    // The VLANs of interfaces the caller sees, and the recorded ones: those no interface names
    // any more, and (for their `created`) those the caller sees an interface of.
    const recorded = this.db.db
      .selectFrom('vlans as s')
      .where('s.account_id', '=', p.accountId)
      .where('s.region', 'in', this.inRegions())
      .where((eb) => eb.or([eb.not(this.attached(p.accountId)), this.attached(p.accountId, p)]))
      .select(['s.label', 's.region', 's.created']);
    const visible = this.db.db
      .selectFrom(this.members(p.accountId, p).as('m'))
      .select(['m.label', 'm.region', 'm.created'])
      .unionAll(recorded);
    const grouped = this.db.db
      .selectFrom(visible.as('u'))
      .select((eb) => [
        eb.ref('u.label').as('label'),
        eb.ref('u.region').as('region'),
        eb.fn.min('u.created').as('created'),
      ])
      .groupBy(['u.label', 'u.region']);
    const page = await paginate(
      this.db.db.selectFrom(grouped.as('v')),
      (qb) => qb.select(['v.label', 'v.region', 'v.created']),
      compileFilter(xf, VLAN_FILTERS, this.db.dialect),
      params,
      { idColumn: ['v.region', 'v.label'] },
      (r: { label: string; region: string; created: string }) => r,
    );
    const members =
      page.data.length === 0
        ? []
        : await this.db.db
            .selectFrom(this.members(p.accountId, p).as('m'))
            .select(['m.label', 'm.region', 'm.compute_id'])
            .distinct()
            .orderBy('m.compute_id')
            .execute();
    const computes = (label: string, region: string) => [
      ...new Set(
        members
          .filter((r) => r.label === label && r.region === region)
          .map((r) => Number(r.compute_id)),
      ),
    ];
    return {
      ...page,
      data: page.data.map((v) => ({
        label: v.label,
        region: v.region,
        computes: computes(v.label, v.region),
        created: v.created,
      })),
    };
  }

  /**
   * `DELETE /networking/vlans/{region}/{label}`: removes a VLAN no interface names any more
   * (400 while one does, whoever's it is; 404 for a VLAN the account does not have). A restricted
   * user may delete one: a detached VLAN holds nothing of anyone's.
   */
  async delete(p: Principal, region: string, label: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const inRegion = this.regions.includes(region);
      const row = inRegion
        ? await tx
            .forUpdate(
              tx.db
                .selectFrom('vlans')
                .select('id')
                .where('account_id', '=', p.accountId)
                .where('region', '=', region)
                .where('label', '=', label),
            )
            .executeTakeFirst()
        : undefined;
      const attached = inRegion
        ? await tx.db
            .selectFrom(this.members(p.accountId).as('m'))
            .select('m.compute_id')
            .where('m.label', '=', label)
            .where('m.region', '=', region)
            .limit(1)
            .executeTakeFirst()
        : undefined;
      if (!row && !attached) throw errors.notFound();
      if (attached) throw errors.reason(VLAN_ATTACHED);
      await tx.db
        .deleteFrom('vlans')
        .where('id', '=', (row as { id: number }).id)
        .execute();
    });
  }
}
