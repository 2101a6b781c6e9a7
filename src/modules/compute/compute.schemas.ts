import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';
import { PlacementAssignment } from '../placement/placement.schemas.js';
import {
  ComputeInterfaceCreateBody,
  InterfaceIpv6Body,
  InterfaceIpv6Schema,
} from './compute-interfaces.schemas.js';

export { InterfaceIpv6Body, InterfaceIpv6Schema };

export const SCHEDULE_DAYS = [
  'Scheduling',
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
];
export const SCHEDULE_WINDOWS = [
  'Scheduling',
  'W0',
  'W2',
  'W4',
  'W6',
  'W8',
  'W10',
  'W12',
  'W14',
  'W16',
  'W18',
  'W20',
  'W22',
];
export const INSTANCE_STATUSES = [
  'running',
  'offline',
  'booting',
  'rebooting',
  'shutting_down',
  'provisioning',
  'deleting',
  'migrating',
  'resizing',
  'rebuilding',
  'cloning',
  'restoring',
  'stopped',
  'billing_suspension',
];

const Alerts = Type.Object({
  cpu: Type.Integer(),
  network_in: Type.Integer(),
  network_out: Type.Integer(),
  transfer_quota: Type.Integer(),
  io: Type.Integer(),
  /** Monitor alert definitions on the instance: none (Stratus serves no monitoring). */
  system_alerts: Type.Array(Type.Integer()),
  user_alerts: Type.Array(Type.Integer()),
});

/**
 * The maintenance policies of the real service (`GET /maintenance/policies`, as the provider's Go
 * SDK recorded them: labels, descriptions, notification periods). An instance's and the account's
 * `maintenance_policy` name one of them by slug; `migrate` moves a running instance live,
 * `power_off_on` powers it off for the window and back on after it.
 */
export const MAINTENANCE_POLICY_LIST = [
  {
    slug: 'compute/migrate',
    label: 'Migrate',
    description:
      'Migrates the instance to a new host while it remains fully operational. Recommended for maximizing availability.',
    type: 'migrate',
    notification_period_sec: 10800,
    is_default: true,
  },
  {
    slug: 'compute/power_off_on',
    label: 'Power Off / Power On',
    description:
      'Powers off the instance at the start of the maintenance event and reboots it once the maintenance finishes. Recommended for maximizing performance.',
    type: 'power_off_on',
    notification_period_sec: 604800,
    is_default: false,
  },
] as const;
export const MAINTENANCE_POLICIES = ['compute/migrate', 'compute/power_off_on'] as const;
export const DEFAULT_MAINTENANCE_POLICY = 'compute/migrate';
export const MaintenancePolicySchema = Type.Object({
  slug: Type.String(),
  label: Type.String(),
  description: Type.String(),
  type: Type.String({ enum: ['migrate', 'power_off_on'] }),
  notification_period_sec: Type.Integer(),
  is_default: Type.Boolean(),
});
export type ApiMaintenancePolicy = Static<typeof MaintenancePolicySchema>;

/**
 * A `maintenance_policy` in a request: one of the policies, else the real service's words (the
 * wire: a slug of another policy is not found; anything that is no slug is a format error).
 */
export function maintenancePolicyError(v: string): string | undefined {
  if ((MAINTENANCE_POLICIES as readonly string[]).includes(v)) return undefined;
  return /^[a-z0-9_-]+\/[a-z0-9_-]+$/.test(v)
    ? 'Maintenance policy not found.'
    : 'Unsupported maintenance policy slug format.';
}

export const INTERFACE_GENERATIONS = ['legacy_config', 'compute'] as const;

export const ComputeSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  region: Type.String(),
  image: Nullable(Type.String()),
  type: Type.String(),
  group: Type.String(),
  tags: Type.Array(Type.String()),
  status: Type.String({ enum: INSTANCE_STATUSES }),
  hypervisor: Type.String({ enum: ['kvm'] }),
  created: DateTime(),
  updated: DateTime(),
  ipv4: Type.Array(Type.String()),
  ipv6: Nullable(Type.String()),
  specs: Type.Object({
    disk: Type.Integer(),
    memory: Type.Integer(),
    vcpus: Type.Integer(),
    gpus: Type.Integer(),
    transfer: Type.Integer(),
    /** Accelerator devices (VPUs) of the plan: none in the shipped catalogue. */
    accelerated_devices: Type.Integer(),
  }),
  alerts: Alerts,
  backups: Type.Object({
    enabled: Type.Boolean(),
    available: Type.Boolean(),
    schedule: Type.Object({
      day: Nullable(Type.String({ enum: SCHEDULE_DAYS })),
      window: Nullable(Type.String({ enum: SCHEDULE_WINDOWS })),
    }),
    last_successful: Nullable(DateTime()),
  }),
  watchdog_enabled: Type.Boolean(),
  host_uuid: Type.String(),
  has_user_data: Type.Boolean(),
  /** The region's `site_type`. */
  site_type: Type.String({ enum: ['core', 'distributed'] }),
  /** What the instance's host and region allow (from the region's capabilities). */
  capabilities: Type.Array(Type.String()),
  maintenance_policy: Type.String(),
  // Fields of features Stratus does not serve yet, with the real service's "not used" values.
  disk_encryption: Type.String({ enum: ['enabled', 'disabled'] }),
  /** `legacy_config`: interfaces in configuration profiles; `compute`: the instance's own. */
  interface_generation: Type.String({ enum: [...INTERFACE_GENERATIONS] }),
  lke_cluster_id: Nullable(Type.Integer()),
  placement_group: Nullable(
    Type.Object({
      id: Type.Integer(),
      label: Type.String(),
      placement_group_type: Type.String(),
      placement_group_policy: Type.String(),
      /** The group a migration under way moves the instance to; null otherwise. */
      migrating_to: Nullable(Type.Integer()),
    }),
  ),
  /** The lock types on the instance (`/locks`). */
  locks: Type.Array(Type.String()),
});

/** An interface as sent in a request (instance create, config create/update, interface add). */
export const InterfaceRequestSchema = Type.Object({
  purpose: Type.String({ enum: ['public', 'vlan', 'vpc'] }),
  label: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  ipam_address: Type.Optional(Nullable(Type.String())),
  primary: Type.Optional(Type.Boolean()),
  subnet_id: Type.Optional(Nullable(Type.Integer())),
  ipv4: Type.Optional(
    Type.Object({
      vpc: Type.Optional(Nullable(Type.String())),
      nat_1_1: Type.Optional(Nullable(Type.String())),
    }),
  ),
  ip_ranges: Type.Optional(Nullable(Type.Array(Type.String()))),
  /** A VPC interface's IPv6 on a dual-stack subnet (VPC IPv6); omitted: one SLAAC /64. */
  ipv6: Type.Optional(Nullable(InterfaceIpv6Body)),
  active: Type.Optional(
    Type.Boolean({ description: 'Accepted and ignored: a boot into the config activates it.' }),
  ),
});

/** An interface as answered. */
export const InterfaceSchema = Type.Object({
  id: Type.Integer(),
  label: Nullable(Type.String()),
  ipam_address: Nullable(Type.String()),
  purpose: Type.String({ enum: ['public', 'vlan', 'vpc'] }),
  active: Type.Boolean(),
  primary: Type.Boolean(),
  vpc_id: Nullable(Type.Integer()),
  subnet_id: Nullable(Type.Integer()),
  /** A VPC interface's addresses; null for public and VLAN interfaces (the wire). */
  ipv4: Nullable(Type.Object({ vpc: Nullable(Type.String()), nat_1_1: Nullable(Type.String()) })),
  /** A VPC interface's routed ranges (`[]` when none); null for other purposes (the wire). */
  ip_ranges: Nullable(Type.Array(Type.String())),
  /** A VPC interface's IPv6 on a dual-stack subnet; null otherwise (the wire). */
  ipv6: Nullable(InterfaceIpv6Schema),
});

/** An item of an instance create's `interfaces`: either generation's fields (checked by the service). */
const CreateInterfaceItem = Type.Object({
  ...InterfaceRequestSchema.properties,
  purpose: Type.Optional(Type.String({ enum: ['public', 'vlan', 'vpc'] })),
  ...ComputeInterfaceCreateBody.properties,
});

export const CreateComputeBody = Type.Object({
  region: Type.String(),
  type: Type.String(),
  label: Type.Optional(Type.String({ minLength: 3, maxLength: 64 })),
  image: Type.Optional(Nullable(Type.String())),
  backup_id: Type.Optional(Type.Integer()),
  root_pass: Type.Optional(Type.String({ minLength: 7, maxLength: 128 })),
  authorized_keys: Type.Optional(Type.Array(Type.String())),
  authorized_users: Type.Optional(Type.Array(Type.String())),
  stackscript_id: Type.Optional(Type.Integer()),
  // A record keeps its keys under removeAdditional: 'all'.
  stackscript_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  swap_size: Type.Optional(Type.Integer({ minimum: 0, maximum: 8192 })),
  booted: Type.Optional(Type.Boolean()),
  backups_enabled: Type.Optional(Type.Boolean()),
  private_ip: Type.Optional(Type.Boolean()),
  firewall_id: Type.Optional(Type.Integer()),
  maintenance_policy: Type.Optional(Type.String()),
  /** `enabled` only where the region has `Disk Encryption`; omitted: the region's default. */
  disk_encryption: Type.Optional(Type.String({ enum: ['enabled', 'disabled'] })),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 50 }))),
  /**
   * Legacy profile interfaces (`purpose` …) or, with `interface_generation: compute`, the
   * instance's own interfaces (`public`, `vpc` or `vlan`, `firewall_id`, `default_route`).
   */
  interfaces: Type.Optional(Type.Array(CreateInterfaceItem, { maxItems: 3 })),
  /** `legacy_config` or `compute`; omitted: what `interfaces_for_new_computes` makes default. */
  interface_generation: Type.Optional(Type.String({ enum: [...INTERFACE_GENERATIONS] })),
  /** The placement group the new instance joins (placement area). */
  placement_group: Type.Optional(Nullable(PlacementAssignment)),
  /** One reserved address of the account: the instance's public IPv4 instead of a new one. */
  ipv4: Type.Optional(Nullable(Type.Array(Type.String()))),
  metadata: Type.Optional(Type.Object({ user_data: Type.Optional(Type.String()) })),
});

export const UpdateComputeBody = Type.Object({
  label: Type.Optional(Type.String({ minLength: 3, maxLength: 64 })),
  group: Type.Optional(Type.String({ maxLength: 50 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 50 }))),
  watchdog_enabled: Type.Optional(Type.Boolean()),
  maintenance_policy: Type.Optional(Type.String()),
  alerts: Type.Optional(
    Type.Object({
      cpu: Type.Optional(Type.Integer({ minimum: 0 })),
      network_in: Type.Optional(Type.Integer({ minimum: 0 })),
      network_out: Type.Optional(Type.Integer({ minimum: 0 })),
      transfer_quota: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
      io: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
  ),
  backups: Type.Optional(
    Type.Object({
      schedule: Type.Optional(
        Type.Object({
          day: Type.Optional(Nullable(Type.String({ enum: SCHEDULE_DAYS }))),
          window: Type.Optional(Nullable(Type.String({ enum: SCHEDULE_WINDOWS }))),
        }),
      ),
    }),
  ),
});

export const ComputeParams = Type.Object({ computeId: Type.Integer() });
export const ComputePage = PageOf(ComputeSchema);
export const BootBody = Type.Object({ config_id: Type.Optional(Type.Integer()) });
/** Reboot: `config_id` null or omitted means the last booted config (spec). */
export const RebootBody = Type.Object({ config_id: Type.Optional(Nullable(Type.Integer())) });
