import type { Generated } from 'kysely';

export type IpKind = 'public' | 'private';

/** IPv4 addresses, allocated per region from configured pools. */
export interface IpAddressesTable {
  id: Generated<number>;
  account_id: number;
  /** null while unassigned (reserved for later operations). */
  instance_id: number | null;
  region: string;
  address: string;
  /** The address as an integer, for allocation. */
  address_num: number;
  kind: IpKind;
  prefix: number;
  gateway: string | null;
  subnet_mask: string;
  /** null = the default reverse DNS name. */
  rdns: string | null;
  /** 1: a reserved address, kept by the account while no instance holds it (0026). */
  reserved: Generated<number>;
  created: string;
}

/** One row per (region, kind): locked while allocating so concurrent creates never collide. */
export interface IpAllocationLocksTable {
  region: string;
  kind: string;
}

/** Custom reverse DNS of an instance's SLAAC address (none: rdns null). */
export interface Ipv6RdnsTable {
  instance_id: number;
  account_id: number;
  rdns: string;
}

export interface NetworkingTables {
  ip_addresses: IpAddressesTable;
  ip_allocation_locks: IpAllocationLocksTable;
  ipv6_rdns: Ipv6RdnsTable;
  firewalls: FirewallsTable;
  firewall_devices: FirewallDevicesTable;
  firewall_rule_versions: FirewallRuleVersionsTable;
  firewall_settings: FirewallSettingsTable;
  firewall_rulesets: FirewallRulesetsTable;
  ipv6_ranges: Ipv6RangesTable;
  ip_shares: IpSharesTable;
  vlans: VlansTable;
}

/**
 * A VLAN of an account in a region: recorded when an interface first names it, kept after its
 * last interface is gone until it is deleted (`DELETE /networking/vlans/{region}/{label}`).
 */
export interface VlansTable {
  id: Generated<number>;
  account_id: number;
  region: string;
  label: string;
  created: string;
}

/** Firewalls; `rules` is JSON {inbound, outbound} of normalised rules. */
export interface FirewallsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  status: 'enabled' | 'disabled';
  inbound_policy: string;
  outbound_policy: string;
  rules: string;
  /** `rules.version`: 1 at creation, one more at each change of the rules. */
  rules_version?: number;
  created: string;
  updated: string;
}

/** Every version of a firewall's rules (0032): `/networking/firewalls/{id}/history`. */
export interface FirewallRuleVersionsTable {
  id: Generated<number>;
  firewall_id: number;
  account_id: number;
  version: number;
  /** The firewall's status when the version was made. */
  status: string;
  inbound_policy: string;
  outbound_policy: string;
  /** JSON {inbound, outbound}, as `firewalls.rules`. */
  rules: string;
  created: string;
}

/** An account's default firewalls (0032); null: no default of that kind. */
export interface FirewallSettingsTable {
  account_id: number;
  compute: number | null;
  nodebalancer: number | null;
  public_interface: number | null;
  vpc_interface: number | null;
  updated: string;
}

/** Rule sets (0042): an account's named list of rules of one direction; `deleted` once deleted. */
export interface FirewallRulesetsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  description: string;
  type: 'inbound' | 'outbound';
  /** JSON array of normalised rules. */
  rules: string;
  version: number;
  created: string;
  updated: string;
  deleted: string | null;
}

/** A firewall's services: an entity of a declared type (compute, nodebalancer). */
export interface FirewallDevicesTable {
  id: Generated<number>;
  firewall_id: number;
  account_id: number;
  entity_type: string;
  entity_id: number;
  created: string;
  updated: string;
}

/** IPv6 ranges (/56, /64) routed to an instance's SLAAC address. */
export interface Ipv6RangesTable {
  id: Generated<number>;
  account_id: number;
  region: string;
  /** The network address, canonical, without prefix length. */
  range: string;
  prefix: number;
  /** The instance whose SLAAC address the range is routed to (null once it is gone). */
  instance_id: number | null;
  route_target: string | null;
  created: string;
}

/** An IPv4 address or an IPv6 range shared with an instance (IP failover). */
export interface IpSharesTable {
  id: Generated<number>;
  account_id: number;
  instance_id: number;
  ip_id: number | null;
  range_id: number | null;
}
