import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import {
  VOLUME_LABEL_MESSAGE,
  VOLUME_LABEL_PATTERN,
  VOLUME_SIZE_DEFAULT,
  VOLUME_SIZE_MAX,
  VOLUME_SIZE_MIN,
} from './volumes.rules.js';

export const VOLUME_STATUSES = ['creating', 'active', 'resizing'];

const Label = Type.String({
  minLength: 1,
  maxLength: 32,
  pattern: VOLUME_LABEL_PATTERN,
  errorMessage: VOLUME_LABEL_MESSAGE,
});
const Size = (extra: { default?: number } = {}) =>
  Type.Integer({
    minimum: VOLUME_SIZE_MIN,
    maximum: VOLUME_SIZE_MAX,
    description: 'GiB',
    ...extra,
  });
const Tags = Type.Array(Type.String({ minLength: 3, maxLength: 50 }));

export const VolumeSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  filesystem_path: Type.String(),
  hardware_type: Type.String({ enum: ['hdd', 'nvme'] }),
  compute_id: Nullable(Type.Integer()),
  compute_label: Nullable(Type.String()),
  region: Type.String(),
  size: Type.Integer(),
  status: Type.String({ enum: VOLUME_STATUSES }),
  tags: Type.Array(Type.String()),
  created: DateTime(),
  updated: DateTime(),
  io_ready: Type.Boolean(),
  encryption: Type.String({ enum: ['enabled', 'disabled'] }),
  locks: Type.Array(Type.String()),
});
export type ApiVolume = Static<typeof VolumeSchema>;

export const CreateVolumeBody = Type.Object({
  label: Label,
  region: Type.Optional(Type.String()),
  compute_id: Type.Optional(Type.Integer()),
  config_id: Type.Optional(Type.Integer()),
  size: Type.Optional(Size({ default: VOLUME_SIZE_DEFAULT })),
  tags: Type.Optional(Tags),
  /** Block storage encryption: `enabled` only in a region with `Block Storage Encryption`. */
  encryption: Type.Optional(Type.String({ enum: ['enabled', 'disabled'] })),
});
export type CreateVolume = Static<typeof CreateVolumeBody>;

/** `size` and `compute_id` are read-only here (reference): accepted and ignored. */
export const UpdateVolumeBody = Type.Object({
  label: Type.Optional(Label),
  tags: Type.Optional(Tags),
  size: Type.Optional(Type.Integer({ description: 'read-only: ignored (resize instead)' })),
  compute_id: Type.Optional(
    Nullable(Type.Integer({ description: 'read-only: ignored (attach instead)' })),
  ),
});
export type UpdateVolume = Static<typeof UpdateVolumeBody>;

export const AttachVolumeBody = Type.Object({
  compute_id: Type.Integer(),
  config_id: Type.Optional(Type.Integer()),
  persist_across_boots: Type.Optional(Type.Boolean({ default: true })),
});
export type AttachVolume = Static<typeof AttachVolumeBody>;

export const CloneVolumeBody = Type.Object({ label: Label });
export const ResizeVolumeBody = Type.Object({ size: Size() });

export const VolumeParams = Type.Object({ volumeId: Type.Integer() });
export const ComputeVolumesParams = Type.Object({ computeId: Type.Integer() });
export const VolumePage = PageOf(VolumeSchema);
