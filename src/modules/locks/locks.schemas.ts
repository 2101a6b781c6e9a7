import { Type } from '@sinclair/typebox';
import { PageOf } from '../../http/schemas/common.js';
import { LOCK_TYPES } from './locks.repository.js';

const LockTypeSchema = Type.String({ enum: [...LOCK_TYPES] });

/** A resource lock, as the real service answers it (`GET /locks/{id}`, recorded). */
export const LockSchema = Type.Object({
  id: Type.Integer(),
  lock_type: LockTypeSchema,
  entity: Type.Object({
    id: Type.Integer(),
    type: Type.String(),
    label: Type.String(),
    url: Type.String(),
  }),
});
export const LockPage = PageOf(LockSchema);

export const CreateLockBody = Type.Object({
  entity_type: Type.String({ description: 'compute, volume or nodebalancer' }),
  entity_id: Type.Integer(),
  lock_type: Type.Optional(
    Type.String({ description: 'cannot_delete (the default) or cannot_delete_with_subresources' }),
  ),
});

export const LockParams = Type.Object({ lockId: Type.Integer() });
