import type { Static } from '@sinclair/typebox';
import { type SqlBool, sql } from 'kysely';
import { authz } from '../../auth/authz.js';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Timing } from '../../jobs/timing.js';
import type { Clock } from '../../lib/clock.js';
import { compileFilter } from '../../lib/filter.js';
import { type Page, type PageParams, paginate } from '../../lib/pagination.js';
import { isoSeconds } from '../../lib/time.js';
import type { CatalogueService } from '../catalogue/catalogue.service.js';
import { findInstance, type InstanceRow } from '../compute/compute.repository.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import {
  addMember,
  groupRef,
  lockGroup,
  type PlacementWork,
  settleCompliance,
} from './placement.compliance.js';
import {
  compliance,
  GROUP_FILTERS,
  type GroupRow,
  membersOf,
  migratingTo,
} from './placement.repository.js';
import {
  PLACEMENT_GROUP_POLICIES,
  PLACEMENT_GROUP_TYPES,
  type PlacementAssignment,
} from './placement.schemas.js';
import type { PlacementGroupPolicy, PlacementGroupType } from './placement.table.js';

type XFilter = string | string[] | undefined;
type Assignment = Static<typeof PlacementAssignment>;

export interface ApiPlacementGroup {
  id: number;
  label: string;
  region: string;
  placement_group_type: PlacementGroupType;
  placement_group_policy: PlacementGroupPolicy;
  is_compliant: boolean;
  members: { compute_id: number; is_compliant: boolean }[];
  migrations: { inbound: { compute_id: number }[]; outbound: { compute_id: number }[] } | null;
}

/** A region's placement group limits (`placement_group_limits` of the region when it has them). */
export interface PlacementLimits {
  maximum_pgs_per_customer: number | null;
  maximum_computes_per_pg: number;
  maximum_computes_per_flexible_pg: number;
}

/** The limits of regions whose catalogue entry gives none (the recorded regions' values). */
export const DEFAULT_PLACEMENT_LIMITS: PlacementLimits = {
  maximum_pgs_per_customer: null,
  maximum_computes_per_pg: 5,
  maximum_computes_per_flexible_pg: 5,
};

export interface PlacementDeps {
  db: Database;
  clock: Clock;
  events: EventWriter;
  queue: JobQueue;
  timing: Timing;
  catalogue: CatalogueService;
}

/** A label: begins and ends with a letter or digit; letters, digits, `-`, `_` and `.` between. */
export function groupLabelProblem(label: string): string | undefined {
  if (label.length < 1 || label.length > 64) return 'Label must be 1-64 characters.';
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(label))
    return 'Label must begin and end with a letter or digit, and contain only letters, digits, hyphens, underscores and periods.';
  return undefined;
}

/**
 * Placement groups (`/placement/groups`): instances of one region kept on one host
 * (`affinity:local`) or spread over hosts (`anti_affinity:local`), with a policy for assignments
 * that would break the model (`strict` refuses them, `flexible` accepts them and the group is
 * non-compliant until its members are moved). Instances join at create, by assignment, or by a
 * migration into the group.
 */
export class PlacementService {
  constructor(private readonly d: PlacementDeps) {}

  private work(db: Database): PlacementWork {
    return { ...this.d, db };
  }

  limits(region: string): PlacementLimits {
    const r = this.d.catalogue.region(region) as
      | { placement_group_limits?: PlacementLimits }
      | undefined;
    return r?.placement_group_limits ?? DEFAULT_PLACEMENT_LIMITS;
  }

  private capacity(g: Pick<GroupRow, 'region' | 'placement_group_policy'>): number {
    const l = this.limits(g.region);
    return g.placement_group_policy === 'flexible'
      ? l.maximum_computes_per_flexible_pg
      : l.maximum_computes_per_pg;
  }

  /** The API shapes of groups: members with their compliance, migrations under way. */
  private async shape(db: Database, rows: readonly GroupRow[]): Promise<ApiPlacementGroup[]> {
    const ids = rows.map((r) => r.id);
    const members = await membersOf(db, ids);
    const inbound = new Map<number, number[]>();
    if (ids.length > 0) {
      // Instances whose queued or running migration moves them into one of these groups.
      const moving = await db.db
        .selectFrom('instances')
        .select(['id', 'pending_migration'])
        .where('pending_migration', 'is not', null)
        .where('account_id', 'in', [...new Set(rows.map((r) => r.account_id))])
        .execute();
      for (const m of moving) {
        const to = migratingTo(m.pending_migration);
        if (to !== null) inbound.set(to, [...(inbound.get(to) ?? []), m.id]);
      }
    }
    return rows.map((g) => {
      const list = members.get(g.id) ?? [];
      const ok = compliance(g.placement_group_type, list);
      const incoming = (inbound.get(g.id) ?? []).filter(
        (id) => !list.some((m) => m.instance_id === id),
      );
      const outgoing = list.filter((m) => m.migrating_to !== null && m.migrating_to !== g.id);
      return {
        id: g.id,
        label: g.label,
        region: g.region,
        placement_group_type: g.placement_group_type,
        placement_group_policy: g.placement_group_policy,
        is_compliant: [...ok.values()].every((v) => v),
        members: list.map((m) => ({
          compute_id: m.instance_id,
          is_compliant: ok.get(m.instance_id) ?? true,
        })),
        migrations:
          incoming.length === 0 && outgoing.length === 0
            ? null
            : {
                inbound: incoming.map((id) => ({ compute_id: id })),
                outbound: outgoing.map((m) => ({ compute_id: m.instance_id })),
              },
      };
    });
  }

  private async one(db: Database, row: GroupRow): Promise<ApiPlacementGroup> {
    const [g] = await this.shape(db, [row]);
    return g as ApiPlacementGroup;
  }

  /**
   * The groups a user may see: every group of the account for unrestricted users and holders of
   * `add_computes` (who create and assign them); otherwise the groups of the instances the user
   * has a grant on (an instance's view names its group). Undefined: no condition.
   */
  private visible(p: Principal): ReturnType<typeof sql<SqlBool>> | undefined {
    if (!p.restricted || p.globalGrants.add_computes) return undefined;
    return sql<SqlBool>`placement_groups.id in (select m.placement_group_id from placement_group_members m where m.instance_id in (select entity_id from entity_grants where user_id = ${p.userId} and entity_type = 'compute'))`;
  }

  private async load(db: Database, p: Principal, id: number, lock = false): Promise<GroupRow> {
    const row = lock
      ? await lockGroup(db, p.accountId, id)
      : await db.db
          .selectFrom('placement_groups')
          .selectAll()
          .where('id', '=', id)
          .where('account_id', '=', p.accountId)
          .executeTakeFirst();
    if (!row) throw errors.notFound();
    const vis = this.visible(p);
    if (vis) {
      const seen = await db.db
        .selectFrom('placement_groups')
        .select('id')
        .where('id', '=', id)
        .where(vis)
        .executeTakeFirst();
      if (!seen) throw errors.notFound();
    }
    return row;
  }

  async list(p: Principal, params: PageParams, xf: XFilter): Promise<Page<ApiPlacementGroup>> {
    const { db } = this.d;
    let base = db.db
      .selectFrom('placement_groups')
      .where('placement_groups.account_id', '=', p.accountId);
    const vis = this.visible(p);
    if (vis) base = base.where(vis);
    const page = await paginate(
      base,
      (qb) => qb.selectAll('placement_groups'),
      compileFilter(xf, GROUP_FILTERS, db.dialect),
      params,
      { idColumn: 'placement_groups.id' },
      (r: GroupRow) => r,
    );
    return { ...page, data: await this.shape(db, page.data) };
  }

  async get(p: Principal, id: number): Promise<ApiPlacementGroup> {
    return this.one(this.d.db, await this.load(this.d.db, p, id));
  }

  async create(
    p: Principal,
    b: {
      label: string;
      region: string;
      placement_group_type: string;
      placement_group_policy: string;
    },
  ): Promise<ApiPlacementGroup> {
    authz.requireGlobal(p, 'add_computes');
    const fe = new FieldErrors();
    const lp = groupLabelProblem(b.label);
    if (lp) fe.add('label', lp);
    const region = this.d.catalogue.region(b.region);
    if (!region) fe.add('region', 'region is not valid');
    else if (!region.capabilities.includes('Placement Group'))
      fe.add('region', 'Placement Groups are not available in this region.');
    if (!(PLACEMENT_GROUP_TYPES as readonly string[]).includes(b.placement_group_type))
      fe.add('placement_group_type', 'placement_group_type is not valid');
    if (!(PLACEMENT_GROUP_POLICIES as readonly string[]).includes(b.placement_group_policy))
      fe.add('placement_group_policy', 'placement_group_policy is not valid');
    fe.throwIfAny();
    return this.d.db.transaction(async (tx) => {
      const taken = await tx.db
        .selectFrom('placement_groups')
        .select('id')
        .where('account_id', '=', p.accountId)
        .where('label', '=', b.label)
        .executeTakeFirst();
      if (taken)
        throw errors.invalidField('label', 'Label must be unique among your placement groups.');
      const max = this.limits(b.region).maximum_pgs_per_customer;
      if (max !== null) {
        const n = await tx.db
          .selectFrom('placement_groups')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('account_id', '=', p.accountId)
          .where('region', '=', b.region)
          .executeTakeFirstOrThrow();
        if (Number(n.n) >= max)
          throw errors.reason(`You may have at most ${max} placement groups in ${b.region}.`);
      }
      const now = isoSeconds(this.d.clock.nowMs());
      const row = await tx.db
        .insertInto('placement_groups')
        .values({
          account_id: p.accountId,
          label: b.label,
          region: b.region,
          placement_group_type: b.placement_group_type as PlacementGroupType,
          placement_group_policy: b.placement_group_policy as PlacementGroupPolicy,
          created: now,
          updated: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.event(tx, p, 'placement_group_create', row);
      return this.one(tx, row);
    });
  }

  async update(p: Principal, id: number, b: { label: string }): Promise<ApiPlacementGroup> {
    authz.requireGlobal(p, 'add_computes');
    const lp = groupLabelProblem(b.label);
    if (lp) throw errors.invalidField('label', lp);
    return this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, true);
      const taken = await tx.db
        .selectFrom('placement_groups')
        .select('id')
        .where('account_id', '=', p.accountId)
        .where('label', '=', b.label)
        .where('id', '<>', id)
        .executeTakeFirst();
      if (taken)
        throw errors.invalidField('label', 'Label must be unique among your placement groups.');
      await tx.db
        .updateTable('placement_groups')
        .set({ label: b.label, updated: isoSeconds(this.d.clock.nowMs()) })
        .where('id', '=', id)
        .execute();
      const after = { ...row, label: b.label };
      await this.event(tx, p, 'placement_group_update', after);
      return this.one(tx, after);
    });
  }

  /** Delete: only an empty group, and not while it is non-compliant (the real service's rules). */
  async delete(p: Principal, id: number): Promise<void> {
    authz.requireGlobal(p, 'add_computes');
    await this.d.db.transaction(async (tx) => {
      const row = await this.load(tx, p, id, true);
      const g = await this.one(tx, row);
      if (g.members.length > 0)
        throw errors.reason(
          'All Computes must be unassigned from the placement group before it can be deleted.',
        );
      if (g.migrations !== null)
        throw errors.reason('A placement group cannot be deleted while Computes migrate into it.');
      if (!g.is_compliant)
        throw errors.reason('A non-compliant placement group cannot be deleted.');
      await tx.db.deleteFrom('placement_groups').where('id', '=', id).execute();
      await this.event(tx, p, 'placement_group_delete', row);
    });
  }

  /**
   * Assign existing instances (each the caller's to change, in the group's region, in no group).
   * An instance stays on its host: one that breaks the group's model is refused by a strict
   * group (or with `compliant_only`), and makes a flexible group non-compliant.
   */
  async assign(
    p: Principal,
    id: number,
    b: { computes: number[]; compliant_only?: boolean },
  ): Promise<ApiPlacementGroup> {
    authz.requireGlobal(p, 'add_computes');
    return this.d.db.transaction(async (tx) => {
      const group = await this.load(tx, p, id, true);
      const ids = [...new Set(b.computes)];
      const fe = new FieldErrors();
      const instances: InstanceRow[] = [];
      for (const cid of ids) {
        const inst = await this.writableInstance(tx, p, cid);
        if (!inst) {
          fe.add('computes', `Compute ${cid} not found.`);
          continue;
        }
        if (inst.region !== group.region)
          fe.add('computes', `Compute ${cid} is not in the placement group's region.`);
        const member = await tx.db
          .selectFrom('placement_group_members')
          .select('placement_group_id')
          .where('instance_id', '=', cid)
          .executeTakeFirst();
        if (member)
          fe.add(
            'computes',
            member.placement_group_id === group.id
              ? `Compute ${cid} is already assigned to this placement group.`
              : `Compute ${cid} is already assigned to a placement group.`,
          );
        instances.push(inst);
      }
      fe.throwIfAny();
      const members = (await membersOf(tx, [group.id])).get(group.id) ?? [];
      if (members.length + ids.length > this.capacity(group))
        throw errors.invalidField(
          'computes',
          `The placement group can hold at most ${this.capacity(group)} Computes.`,
        );
      const strict = group.placement_group_policy === 'strict' || b.compliant_only === true;
      const after = compliance(group.placement_group_type, [
        ...members,
        ...instances.map((i) => ({ instance_id: i.id, host_uuid: i.host_uuid })),
      ]);
      if (strict && [...after.values()].some((v) => !v)) {
        throw errors.invalidField(
          'computes',
          group.placement_group_policy === 'strict'
            ? 'Assigning these Computes would make the strict placement group non-compliant.'
            : 'Assigning these Computes would make the placement group non-compliant.',
        );
      }
      for (const inst of instances) {
        await addMember(this.work(tx), group, inst.id, false);
        await this.event(tx, p, 'placement_group_assign', group, inst);
      }
      await settleCompliance(this.work(tx), group.id);
      return this.one(tx, group);
    });
  }

  async unassign(p: Principal, id: number, b: { computes: number[] }): Promise<ApiPlacementGroup> {
    authz.requireGlobal(p, 'add_computes');
    return this.d.db.transaction(async (tx) => {
      const group = await this.load(tx, p, id, true);
      const ids = [...new Set(b.computes)];
      const members = new Set(
        ((await membersOf(tx, [group.id])).get(group.id) ?? []).map((m) => m.instance_id),
      );
      const fe = new FieldErrors();
      const instances: InstanceRow[] = [];
      for (const cid of ids) {
        const inst = await this.writableInstance(tx, p, cid);
        if (!inst) fe.add('computes', `Compute ${cid} not found.`);
        else if (!members.has(cid))
          fe.add('computes', `Compute ${cid} is not assigned to this placement group.`);
        else instances.push(inst);
      }
      fe.throwIfAny();
      for (const inst of instances) {
        await tx.db
          .deleteFrom('placement_group_members')
          .where('instance_id', '=', inst.id)
          .execute();
        await this.event(tx, p, 'placement_group_unassign', group, inst);
      }
      await settleCompliance(this.work(tx), group.id);
      return this.one(tx, group);
    });
  }

  /** An instance the caller may change (undefined when it is not the account's or not visible). */
  private async writableInstance(
    db: Database,
    p: Principal,
    id: number,
  ): Promise<InstanceRow | undefined> {
    const inst = await findInstance(db, p.accountId, id, true);
    if (!inst || inst.status === 'deleting') return undefined;
    const perm = await authz.permissionOn(db, p, 'compute', id);
    if (perm === null) return undefined;
    if (perm !== 'read_write') throw errors.unauthorized();
    return inst;
  }

  /**
   * `placement_group` of an instance create (or of a migration, with the target region): the
   * group must be the account's, in that region, with room; `compliant_only` is checked at join.
   */
  async check(
    db: Database,
    p: Principal,
    fe: FieldErrors,
    a: Assignment | undefined,
    region: string | undefined,
    field = 'placement_group.id',
  ): Promise<GroupRow | undefined> {
    if (a === undefined) return undefined;
    const group = await db.db
      .selectFrom('placement_groups')
      .selectAll()
      .where('id', '=', a.id)
      .where('account_id', '=', p.accountId)
      .executeTakeFirst();
    if (!group) {
      fe.add(field, 'Placement group not found.');
      return undefined;
    }
    if (region !== undefined && group.region !== region)
      fe.add(field, 'The placement group must be in the same region as the Compute.');
    return group;
  }

  /**
   * Makes a new instance a member of its create's group, inside the create's transaction: placed
   * on a host that keeps the group's model, within the group's capacity.
   */
  async joinAtCreate(
    tx: Database,
    p: Principal,
    a: Assignment,
    instance: { id: number; label: string },
  ): Promise<void> {
    const group = await lockGroup(tx, p.accountId, a.id);
    if (!group) throw errors.invalidField('placement_group.id', 'Placement group not found.');
    const members = (await membersOf(tx, [group.id])).get(group.id) ?? [];
    if (members.length >= this.capacity(group))
      throw errors.invalidField(
        'placement_group.id',
        `The placement group can hold at most ${this.capacity(group)} Computes.`,
      );
    await addMember(this.work(tx), group, instance.id, true);
    await this.event(tx, p, 'placement_group_assign', group, {
      id: instance.id,
      label: instance.label,
    });
    await settleCompliance(this.work(tx), group.id);
  }

  /**
   * A migration into a group (`placement_group` of `POST …/migrate`), checked when it is asked
   * for: the group in the target region, with room for the members and those already moving in.
   */
  async checkMigration(
    tx: Database,
    p: Principal,
    a: Assignment,
    inst: InstanceRow,
    targetRegion: string,
  ): Promise<void> {
    const fe = new FieldErrors();
    const group = await this.check(tx, p, fe, a, targetRegion);
    fe.throwIfAny();
    if (!group) return;
    const [shape] = await this.shape(tx, [group]);
    const taken = (shape?.members.length ?? 0) + (shape?.migrations?.inbound.length ?? 0);
    if (shape?.members.some((m) => m.compute_id === inst.id))
      throw errors.invalidField(
        'placement_group.id',
        'The Compute is already in this placement group.',
      );
    if (taken >= this.capacity(group))
      throw errors.invalidField(
        'placement_group.id',
        `The placement group can hold at most ${this.capacity(group)} Computes.`,
      );
  }

  private async event(
    tx: Database,
    p: Principal,
    action: string,
    g: Pick<GroupRow, 'id' | 'label'>,
    inst?: { id: number; label: string },
  ): Promise<void> {
    await this.d.events.record(tx, {
      accountId: p.accountId,
      action,
      entity: groupRef(g.id, g.label),
      secondaryEntity: inst ? entityRefs.compute(inst.id, inst.label) : null,
      status: 'notification',
      username: p.username,
    });
  }
}
