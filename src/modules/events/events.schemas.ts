import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

export const EntitySchema = Type.Object({
  id: Nullable(Type.Integer()),
  type: Type.String(),
  label: Nullable(Type.String()),
  url: Nullable(Type.String()),
});

export const EventSchema = Type.Object({
  id: Type.Integer(),
  action: Type.String(),
  created: DateTime(),
  duration: Nullable(Type.Number()),
  entity: Nullable(EntitySchema),
  secondary_entity: Nullable(EntitySchema),
  message: Nullable(Type.String()),
  percent_complete: Nullable(Type.Integer()),
  rate: Nullable(Type.String()),
  read: Type.Boolean(),
  seen: Type.Boolean(),
  status: Type.String({ enum: ['failed', 'finished', 'notification', 'scheduled', 'started'] }),
  time_remaining: Nullable(Type.String()),
  username: Nullable(Type.String()),
});

export const EventPage = PageOf(EventSchema);
export const EventIdParams = Type.Object({ eventId: Type.Integer() });
