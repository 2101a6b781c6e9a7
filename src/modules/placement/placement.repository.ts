import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/database.js';
import { parseJson } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { PlacementGroupsTable } from './placement.table.js';

export type GroupRow = Selectable<PlacementGroupsTable>;

/** Filterable fields of `GET /placement/groups` (the real service marks these filterable). */
export const GROUP_FILTERS: FilterSpec = {
  id: { kind: 'int', column: 'placement_groups.id' },
  label: { kind: 'string', column: 'placement_groups.label' },
  region: { kind: 'string', column: 'placement_groups.region' },
  placement_group_type: { kind: 'string', column: 'placement_groups.placement_group_type' },
  placement_group_policy: { kind: 'string', column: 'placement_groups.placement_group_policy' },
  is_compliant: { kind: 'bool', column: 'placement_groups.is_compliant' },
};

/** A member as the compliance rules see it: its instance, host and when it joined. */
export interface MemberHost {
  instance_id: number;
  host_uuid: string;
  created: string;
  /** The group a migration under way moves it to (instances.pending_migration). */
  migrating_to: number | null;
}

/** The group a queued or running migration moves an instance to (null: none). */
export function migratingTo(pendingMigration: string | null): number | null {
  if (!pendingMigration) return null;
  const m = parseJson<{ placementGroupId?: number } | null>(pendingMigration, null);
  return typeof m?.placementGroupId === 'number' ? m.placementGroupId : null;
}

/** Members of groups, each list in the order they joined. */
export async function membersOf(
  db: Database,
  groupIds: readonly number[],
): Promise<Map<number, MemberHost[]>> {
  const out = new Map<number, MemberHost[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return out;
  const rows = await db.db
    .selectFrom('placement_group_members as m')
    .innerJoin('instances as i', 'i.id', 'm.instance_id')
    .select([
      'm.placement_group_id',
      'm.instance_id',
      'm.created',
      'i.host_uuid',
      'i.pending_migration',
    ])
    .where('m.placement_group_id', 'in', [...groupIds])
    .orderBy('m.created')
    .orderBy('m.instance_id')
    .execute();
  for (const r of rows) {
    out.get(r.placement_group_id)?.push({
      instance_id: r.instance_id,
      host_uuid: r.host_uuid,
      created: r.created,
      migrating_to: migratingTo(r.pending_migration),
    });
  }
  return out;
}

/**
 * Which members keep the group's model. `anti_affinity:local`: a member is compliant when no
 * member that joined before it shares its host. `affinity:local`: the group's host is its first
 * member's; a member elsewhere is not compliant.
 */
export function compliance(
  type: string,
  members: readonly Pick<MemberHost, 'instance_id' | 'host_uuid'>[],
): Map<number, boolean> {
  const out = new Map<number, boolean>();
  if (type === 'affinity:local') {
    const host = members[0]?.host_uuid;
    for (const m of members) out.set(m.instance_id, m.host_uuid === host);
    return out;
  }
  const seen = new Set<string>();
  for (const m of members) {
    out.set(m.instance_id, !seen.has(m.host_uuid));
    seen.add(m.host_uuid);
  }
  return out;
}

/** The host a member should be on for its group to stay compliant. */
export function compliantHost(
  type: string,
  others: readonly Pick<MemberHost, 'host_uuid'>[],
): string {
  if (type === 'affinity:local' && others[0]) return others[0].host_uuid;
  // A fresh host shares nothing: an anti-affinity member (or a first member) is alone on it.
  return randomUUID();
}

/** The `placement_group` of instances (null outside any group), for the instance views. */
export async function placementOfInstances(
  db: Database,
  rows: readonly { id: number; pending_migration: string | null }[],
): Promise<
  Map<
    number,
    {
      id: number;
      label: string;
      placement_group_type: string;
      placement_group_policy: string;
      migrating_to: number | null;
    }
  >
> {
  const out = new Map();
  if (rows.length === 0) return out;
  const groups = await db.db
    .selectFrom('placement_group_members as m')
    .innerJoin('placement_groups as g', 'g.id', 'm.placement_group_id')
    .select([
      'm.instance_id',
      'g.id',
      'g.label',
      'g.placement_group_type',
      'g.placement_group_policy',
    ])
    .where(
      'm.instance_id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
  const pending = new Map(rows.map((r) => [r.id, migratingTo(r.pending_migration)]));
  for (const g of groups) {
    out.set(g.instance_id, {
      id: g.id,
      label: g.label,
      placement_group_type: g.placement_group_type,
      placement_group_policy: g.placement_group_policy,
      migrating_to: pending.get(g.instance_id) ?? null,
    });
  }
  return out;
}

/** Ids and labels of an account's placement groups (grants-style views, event references). */
export async function groupLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('placement_groups')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}
