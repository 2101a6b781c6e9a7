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
  /** A public image as secondary entity has its string id (`compute/debian12`), as on the wire. */
  secondary_entity: Nullable(
    Type.Object({
      id: Nullable(Type.Union([Type.Integer(), Type.String()])),
      type: Type.String(),
      label: Nullable(Type.String()),
      url: Nullable(Type.String()),
    }),
  ),
  message: Type.String(),
  percent_complete: Nullable(Type.Integer()),
  rate: Nullable(Type.String()),
  read: Type.Boolean(),
  seen: Type.Boolean(),
  status: Type.String({
    enum: ['canceled', 'failed', 'finished', 'notification', 'scheduled', 'started'],
  }),
  time_remaining: Nullable(Type.Union([Type.Integer(), Type.String()])),
  username: Nullable(Type.String()),
  /** Action-specific details (the wire); no action Stratus records carries any. */
  details: Type.Record(Type.String(), Type.Unknown()),
});

export const EventPage = PageOf(EventSchema);
export const EventIdParams = Type.Object({ eventId: Type.Integer() });
