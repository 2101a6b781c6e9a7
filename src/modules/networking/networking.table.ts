import type { Generated } from '../../db/database.js';

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
}
