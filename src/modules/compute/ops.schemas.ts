import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas/common.js';
import { PlacementAssignment } from '../placement/placement.schemas.js';

export const ResizeBody = Type.Object({
  type: Type.String(),
  allow_auto_disk_resize: Type.Optional(Type.Boolean({ default: true })),
  migration_type: Type.Optional(Type.String({ enum: ['warm', 'cold'], default: 'cold' })),
});

export const MutateBody = Type.Object({
  allow_auto_disk_resize: Type.Optional(Type.Boolean({ default: true })),
});

export const MigrateBody = Type.Object({
  region: Type.Optional(Type.String()),
  upgrade: Type.Optional(Type.Boolean({ default: false })),
  type: Type.Optional(Type.String({ enum: ['warm', 'cold'], default: 'cold' })),
  /** The placement group the instance moves into (in the target region). */
  placement_group: Type.Optional(Nullable(PlacementAssignment)),
});

export const PasswordBody = Type.Object({ root_pass: Type.String() });

export const RebuildBody = Type.Object({
  image: Type.String(),
  root_pass: Type.String({ minLength: 7, maxLength: 128 }),
  authorized_keys: Type.Optional(Type.Array(Type.String())),
  authorized_users: Type.Optional(Type.Array(Type.String())),
  stackscript_id: Type.Optional(Type.Integer()),
  stackscript_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  booted: Type.Optional(Type.Boolean({ default: true })),
  metadata: Type.Optional(Type.Object({ user_data: Type.Optional(Type.String()) })),
  type: Type.Optional(Type.String()),
  /** `enabled` only where the region has `Disk Encryption`; omitted: the instance keeps its own. */
  disk_encryption: Type.Optional(Type.String({ enum: ['enabled', 'disabled'] })),
});

const RescueDevice = Type.Object({
  disk_id: Type.Optional(Nullable(Type.Integer())),
  volume_id: Type.Optional(Nullable(Type.Integer())),
});
const slot = Type.Optional(Nullable(RescueDevice));

export const RescueBody = Type.Object({
  devices: Type.Optional(
    Type.Object({
      sda: slot,
      sdb: slot,
      sdc: slot,
      sdd: slot,
      sde: slot,
      sdf: slot,
      sdg: slot,
      sdh: Type.Optional(
        Type.Unknown({ description: 'Reserved for the rescue system: always refused (400).' }),
      ),
    }),
  ),
});

export const CloneBody = Type.Object({
  region: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  compute_id: Type.Optional(Type.Integer()),
  label: Type.Optional(Type.String({ minLength: 3, maxLength: 64 })),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  backups_enabled: Type.Optional(Type.Boolean()),
  disks: Type.Optional(Type.Array(Type.Integer())),
  configs: Type.Optional(Type.Array(Type.Integer())),
  private_ip: Type.Optional(Type.Boolean()),
  metadata: Type.Optional(Type.Object({ user_data: Type.Optional(Type.String()) })),
  /** The placement group a new target joins. */
  placement_group: Type.Optional(Nullable(PlacementAssignment)),
});
