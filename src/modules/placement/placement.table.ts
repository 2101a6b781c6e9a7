import type { Generated } from 'kysely';

/** `anti_affinity:local` spreads members over hosts; `affinity:local` keeps them on one. */
export type PlacementGroupType = 'anti_affinity:local' | 'affinity:local';
/** `strict` refuses an assignment that breaks the type's model; `flexible` accepts it. */
export type PlacementGroupPolicy = 'strict' | 'flexible';

export interface PlacementGroupsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  placement_group_type: PlacementGroupType;
  placement_group_policy: PlacementGroupPolicy;
  /** The compliance last announced (0/1): a change writes a became_(non_)compliant event. */
  is_compliant: Generated<number>;
  created: string;
  updated: string;
}

/** An instance's membership of a group (at most one group per instance). */
export interface PlacementGroupMembersTable {
  instance_id: number;
  placement_group_id: number;
  account_id: number;
  created: string;
}

export interface PlacementTables {
  placement_groups: PlacementGroupsTable;
  placement_group_members: PlacementGroupMembersTable;
}
