import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { MaintenancePolicySchema } from '../compute/compute.schemas.js';

/** The reference's types, then the newer wire's (a maintenance policy's `type`). */
export const MAINTENANCE_TYPES = [
  'reboot',
  'cold_migration',
  'live_migration',
  'migrate',
  'power_off_on',
] as const;
export const MAINTENANCE_DESCRIPTIONS = ['scheduled', 'emergency'] as const;
export const MAINTENANCE_SOURCES = ['platform', 'user'] as const;

export const MaintenanceSchema = Type.Object({
  type: Type.String({ enum: [...MAINTENANCE_TYPES] }),
  status: Type.String({ enum: ['completed', 'pending', 'started'] }),
  reason: Type.String(),
  when: DateTime(),
  /**
   * The maintenance policy the maintenance follows: the instance's policy now, frozen once the
   * maintenance starts (the newer wire, as the SDKs read it).
   */
  maintenance_policy_set: Type.String(),
  /** `scheduled` (with the policy's notice period) or `emergency`. */
  description: Type.String({ enum: [...MAINTENANCE_DESCRIPTIONS] }),
  source: Type.String({ enum: [...MAINTENANCE_SOURCES] }),
  /** The earliest start the policy's notice period allows. */
  not_before: Nullable(DateTime()),
  /** The planned start, then the actual one. */
  start_time: Nullable(DateTime()),
  /** The planned end, then the actual one. */
  complete_time: Nullable(DateTime()),
  entity: Type.Object({
    label: Type.String(),
    id: Type.Number(),
    type: Type.String(),
    url: Type.String(),
  }),
});
export type ApiMaintenance = Static<typeof MaintenanceSchema>;
export const MaintenancePage = PageOf(MaintenanceSchema);
export const MaintenancePolicyPage = PageOf(MaintenancePolicySchema);

export const NOTIFICATION_TYPES = [
  'migration_scheduled',
  'migration_imminent',
  'migration_pending',
  'reboot_scheduled',
  'outage',
  'payment_due',
  'ticket_important',
  'ticket_abuse',
  'notice',
  'maintenance',
  'promotion',
] as const;

export const NotificationSchema = Type.Object({
  entity: Type.Object({
    id: Nullable(Type.Integer()),
    label: Nullable(Type.String()),
    type: Type.String({
      enum: [
        'account',
        'entity_transfer',
        'compute',
        'nodebalancer',
        'promotion',
        'region',
        'ticket',
        'volume',
      ],
    }),
    url: Nullable(Type.String()),
  }),
  label: Type.String(),
  message: Type.String(),
  body: Nullable(Type.String()),
  type: Type.String({ enum: [...NOTIFICATION_TYPES] }),
  severity: Type.String({ enum: ['minor', 'major', 'critical'] }),
  when: Nullable(DateTime()),
  until: Nullable(DateTime()),
});
export type ApiNotification = Static<typeof NotificationSchema>;
export const NotificationPage = PageOf(NotificationSchema);

export const AvailabilitySchema = Type.Object({
  region: Type.String(),
  available: Type.Array(Type.String()),
  unavailable: Type.Array(Type.String()),
});
export type ApiAvailability = Static<typeof AvailabilitySchema>;
export const AvailabilityPage = PageOf(AvailabilitySchema);
export const RegionParams = Type.Object({ id: Type.String() });

/** The operator's maintenance record (`/_stratus/maintenance`, `stratus maintenance`). */
export const OperatorMaintenanceSchema = Type.Object({
  id: Type.Integer(),
  euuid: Type.String(),
  entity: Type.Object({ id: Type.Integer(), type: Type.String() }),
  type: Type.String(),
  /** Whether `type` follows the instance's maintenance policy until the maintenance starts. */
  by_policy: Type.Boolean(),
  status: Type.String({ enum: ['pending', 'started', 'completed', 'canceled'] }),
  reason: Type.String(),
  description: Type.String(),
  source: Type.String(),
  when: DateTime(),
  until: DateTime(),
  not_before: Nullable(DateTime()),
  start_time: Nullable(DateTime()),
  complete_time: Nullable(DateTime()),
  maintenance_policy_set: Type.String(),
  /** The maintenance's event (`compute_migrate` or `compute_poweroff_on`). */
  event_id: Nullable(Type.Integer()),
  created: DateTime(),
});
export type OperatorMaintenance = Static<typeof OperatorMaintenanceSchema>;
export const OperatorMaintenanceList = Type.Object({ data: Type.Array(OperatorMaintenanceSchema) });

export const CreateMaintenanceBody = Type.Object({
  compute_id: Type.Integer({ description: 'The instance under maintenance.' }),
  type: Type.Optional(
    Nullable(
      Type.String({
        enum: [...MAINTENANCE_TYPES],
        description:
          "What the maintenance does; default (or null): what the instance's maintenance policy says when it starts.",
      }),
    ),
  ),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  description: Type.Optional(
    Nullable(
      Type.String({
        enum: [...MAINTENANCE_DESCRIPTIONS],
        description: '`scheduled` (default: the notice period applies) or `emergency` (none).',
      }),
    ),
  ),
  source: Type.Optional(Nullable(Type.String({ enum: [...MAINTENANCE_SOURCES] }))),
  when: Type.Optional(
    Nullable(
      Type.String({
        description:
          "Start of the window (ISO 8601, UTC); default: the end of the notice period of the instance's policy.",
      }),
    ),
  ),
  until: Type.Optional(
    Nullable(
      Type.String({ description: 'End of the window (ISO 8601); default: 2 hours after when.' }),
    ),
  ),
});
export type CreateMaintenance = Static<typeof CreateMaintenanceBody>;
export const MaintenanceIdParams = Type.Object({ id: Type.Integer() });
