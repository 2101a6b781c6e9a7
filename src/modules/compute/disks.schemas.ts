import { Type } from '@sinclair/typebox';
import { DateTime, PageOf } from '../../http/schemas/common.js';

export const FILESYSTEMS = ['raw', 'swap', 'ext3', 'ext4', 'initrd'];
export const DISK_STATUSES = ['ready', 'not ready', 'deleting'];

export const DiskSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  status: Type.String({ enum: DISK_STATUSES }),
  size: Type.Integer(),
  filesystem: Type.String({ enum: FILESYSTEMS }),
  created: DateTime(),
  updated: DateTime(),
  disk_encryption: Type.String({ enum: ['enabled', 'disabled'] }),
});
export const DiskPage = PageOf(DiskSchema);

const DiskLabel = Type.String({ minLength: 1, maxLength: 48 });

export const CreateDiskBody = Type.Object({
  size: Type.Integer({ minimum: 1 }),
  label: Type.Optional(DiskLabel),
  filesystem: Type.Optional(Type.String({ enum: FILESYSTEMS })),
  image: Type.Optional(Type.String()),
  root_pass: Type.Optional(Type.String({ minLength: 7, maxLength: 128 })),
  authorized_keys: Type.Optional(Type.Array(Type.String())),
  authorized_users: Type.Optional(Type.Array(Type.String())),
  stackscript_id: Type.Optional(Type.Integer()),
  // A record keeps its keys under removeAdditional: 'all'.
  stackscript_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const UpdateDiskBody = Type.Object({ label: Type.Optional(DiskLabel) });
export const ResizeDiskBody = Type.Object({ size: Type.Integer({ minimum: 1 }) });
export const DiskPasswordBody = Type.Object({ password: Type.String() });

export const DiskParams = Type.Object({ computeId: Type.Integer(), diskId: Type.Integer() });
