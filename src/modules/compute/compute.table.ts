import type { Generated } from 'kysely';

export type InstanceStatus =
  | 'running'
  | 'offline'
  | 'booting'
  | 'rebooting'
  | 'shutting_down'
  | 'provisioning'
  | 'deleting'
  | 'migrating'
  | 'resizing'
  | 'rebuilding'
  | 'cloning'
  | 'restoring'
  | 'stopped'
  | 'billing_suspension';

export interface InstancesTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  type: string;
  image: string | null;
  status: InstanceStatus;
  /** The status a client last read (GET); a transitional status holds until read (ops.hold.ts). */
  seen_status?: string | null;
  /** `compute/migrate` or `compute/power_off_on`; null: the account's default. */
  maintenance_policy?: string | null;
  group_label: string;
  host_uuid: string;
  watchdog_enabled: number;
  /** JSON {cpu, io, network_in, network_out, transfer_quota}. */
  alerts: string;
  backups_enabled: number;
  backups_day: string | null;
  backups_window: string | null;
  backups_last_successful: string | null;
  has_user_data: number;
  /** SLAAC address without prefix length, or null. */
  ipv6: string | null;
  last_booted_config_id: number | null;
  /** JSON {kind: 'host'|'datacenter', region, type} while a migration is queued or under way. */
  pending_migration: string | null;
  /** While `cloning`: the status the source returns to when its last clone ends. */
  resume_status: InstanceStatus | null;
  /** `legacy_config` (profile interfaces) or `compute` (the instance's own interfaces, 0028). */
  interface_generation?: string;
  /** `enabled` or `disabled`: local disk encryption of the instance's disks (0034). */
  disk_encryption?: string;
  /** Network helper of an instance of the `compute` generation (`/interfaces/settings`). */
  interfaces_network_helper?: number;
  created: string;
  updated: string;
}

export type DiskStatus = 'ready' | 'not ready' | 'deleting';

export interface DisksTable {
  id: Generated<number>;
  instance_id: number;
  account_id: number;
  label: string;
  status: DiskStatus;
  /** MB. */
  size: number;
  filesystem: string;
  image: string | null;
  /** MB of data on the disk (restore, clone and shrink check against it). */
  used_mb: number;
  created: string;
  updated: string;
}

export interface ConfigsTable {
  id: Generated<number>;
  instance_id: number;
  account_id: number;
  label: string;
  kernel: string;
  comments: string | null;
  memory_limit: number;
  run_level: string;
  virt_mode: string;
  root_device: string;
  /** JSON of the five helper booleans. */
  helpers: string;
  /** JSON {sda..sdh: {disk_id}|{volume_id}|null}. */
  devices: string;
  created: string;
  updated: string;
}

export interface ConfigInterfacesTable {
  id: Generated<number>;
  config_id: number;
  instance_id: number;
  /** 0, 1, 2 = eth0, eth1, eth2. */
  position: number;
  purpose: 'public' | 'vlan' | 'vpc';
  label: string | null;
  ipam_address: string | null;
  is_primary: number;
  vpc_id: number | null;
  subnet_id: number | null;
  ipv4_vpc: string | null;
  ipv4_nat_1_1: string | null;
  /** JSON array of CIDR strings, or null. */
  ip_ranges: string | null;
  /** A VPC interface's IPv6 on a dual-stack subnet (JSON, see vpc-ipv6.rules.ts), or null. */
  ipv6: string | null;
}

/** An instance's own interfaces (`interface_generation: compute`). */
export interface ComputeInterfacesTable {
  id: Generated<number>;
  account_id: number;
  instance_id: number;
  purpose: 'public' | 'vpc' | 'vlan';
  mac_address: string;
  version: Generated<number>;
  default_ipv4: Generated<number>;
  default_ipv6: Generated<number>;
  /** A public interface's primary IPv4 (one of the instance's public addresses). */
  primary_ipv4: string | null;
  vpc_id: number | null;
  subnet_id: number | null;
  /** A VPC interface's primary address in its subnet. */
  ipv4_vpc: string | null;
  /** The public IPv4 mapped 1:1 to `ipv4_vpc`, or null. */
  ipv4_nat_1_1: string | null;
  /** JSON array of CIDR strings routed to the interface, or null. */
  ip_ranges: string | null;
  /** A VPC interface's IPv6 on a dual-stack subnet (JSON, see vpc-ipv6.rules.ts), or null. */
  ipv6: Generated<string | null>;
  vlan_label: string | null;
  ipam_address: string | null;
  created: string;
  updated: string;
}

/** Periods during which an instance was running: statistics and billing read them. */
export interface InstanceRunsTable {
  id: Generated<number>;
  instance_id: number;
  account_id: number;
  /** Epoch ms. */
  started_ms: number;
  stopped_ms: number | null;
}

/** Clones under way from a source instance (at most 5 at once). */
export interface InstanceClonesTable {
  id: Generated<number>;
  account_id: number;
  source_id: number;
  target_id: number;
  created_ms: number;
}

export type BackupStatus =
  | 'paused'
  | 'pending'
  | 'running'
  | 'needsPostProcessing'
  | 'successful'
  | 'failed'
  | 'userAborted';

/** Backups of an instance: automatic (daily, weekly, biweekly slots) and the one snapshot. */
export interface BackupsTable {
  id: Generated<number>;
  account_id: number;
  instance_id: number;
  region: string;
  type: 'auto' | 'snapshot';
  /** Automatic backups: 'daily', 'weekly' or 'biweekly'; null for a snapshot. */
  slot: string | null;
  status: BackupStatus;
  available: number;
  label: string | null;
  /** JSON BackupContents: the disks and configs captured. */
  contents: string;
  created: string;
  updated: string;
  finished: string | null;
}

export interface ComputeTables {
  instances: InstancesTable;
  disks: DisksTable;
  configs: ConfigsTable;
  config_interfaces: ConfigInterfacesTable;
  compute_interfaces: ComputeInterfacesTable;
  instance_runs: InstanceRunsTable;
  instance_clones: InstanceClonesTable;
  backups: BackupsTable;
}
