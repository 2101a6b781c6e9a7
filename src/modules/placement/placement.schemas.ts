import { Type } from '@sinclair/typebox';
import { Nullable, PageOf } from '../../http/schemas/common.js';

export const PLACEMENT_GROUP_TYPES = ['anti_affinity:local', 'affinity:local'] as const;
export const PLACEMENT_GROUP_POLICIES = ['strict', 'flexible'] as const;

const Migrating = Type.Array(Type.Object({ compute_id: Type.Integer() }));

/** A placement group as the real service answers it (recorded: `GET /placement/groups/{id}`). */
export const PlacementGroupSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  region: Type.String(),
  placement_group_type: Type.String({ enum: [...PLACEMENT_GROUP_TYPES] }),
  placement_group_policy: Type.String({ enum: [...PLACEMENT_GROUP_POLICIES] }),
  is_compliant: Type.Boolean(),
  members: Type.Array(Type.Object({ compute_id: Type.Integer(), is_compliant: Type.Boolean() })),
  /** Instances migrating into and out of the group; null when none is. */
  migrations: Nullable(Type.Object({ inbound: Migrating, outbound: Migrating })),
});
export const PlacementGroupPage = PageOf(PlacementGroupSchema);

export const CreatePlacementGroupBody = Type.Object({
  label: Type.String(),
  region: Type.String(),
  placement_group_type: Type.String({ description: 'anti_affinity:local or affinity:local' }),
  placement_group_policy: Type.String({ description: 'strict or flexible' }),
});

export const UpdatePlacementGroupBody = Type.Object({ label: Type.String() });

export const AssignBody = Type.Object({
  computes: Type.Array(Type.Integer(), { minItems: 1 }),
  /** Refuse an assignment that would make a flexible group non-compliant. */
  compliant_only: Type.Optional(Type.Boolean({ default: false })),
});

export const UnassignBody = Type.Object({
  computes: Type.Array(Type.Integer(), { minItems: 1 }),
});

/** `placement_group` of an instance create, clone or migrate. */
export const PlacementAssignment = Type.Object({
  id: Type.Integer(),
  compliant_only: Type.Optional(Type.Boolean({ default: false })),
});

export const GroupParams = Type.Object({ groupId: Type.Integer() });
