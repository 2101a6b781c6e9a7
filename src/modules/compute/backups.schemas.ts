import { Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../http/schemas/common.js';

export const BACKUP_STATUSES = [
  'paused',
  'pending',
  'running',
  'needsPostProcessing',
  'successful',
  'failed',
  'userAborted',
];

export const BackupSchema = Type.Object({
  id: Type.Integer(),
  type: Type.String({ enum: ['auto', 'snapshot'] }),
  status: Type.String({ enum: BACKUP_STATUSES }),
  available: Type.Boolean(),
  created: DateTime(),
  updated: DateTime(),
  finished: Nullable(DateTime()),
  label: Nullable(Type.String()),
  /** The region the backup is stored in (the wire; the reference predates it). */
  region: Type.String(),
  configs: Type.Array(Type.String()),
  disks: Type.Array(
    Type.Object({
      size: Type.Integer(),
      filesystem: Type.String({ enum: ['raw', 'swap', 'ext3', 'ext4', 'initrd'] }),
      label: Type.String(),
    }),
  ),
});

export const BackupsListSchema = Type.Object({
  automatic: Type.Array(BackupSchema),
  snapshot: Type.Object({
    in_progress: Nullable(BackupSchema),
    current: Nullable(BackupSchema),
  }),
});

export const BackupParams = Type.Object({ computeId: Type.Integer(), backupId: Type.Integer() });
export const SnapshotBody = Type.Object({ label: Type.String({ minLength: 1, maxLength: 255 }) });
export const RestoreBody = Type.Object({
  compute_id: Type.Integer(),
  overwrite: Type.Optional(Type.Boolean()),
});
