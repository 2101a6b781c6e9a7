import type { Generated } from 'kysely';

export interface VpcsTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  description: string;
  region: string;
  /** The VPC's IPv6 range (`2001:db8:8500::/52`) from its region's pool; null: IPv4 only. */
  ipv6: string | null;
  /** The VPC's own IPv4 ranges (a JSON array of CIDRs) its subnets lie in; null: the defaults. */
  ipv4_ranges: string | null;
  /** `regular` or `rdma` (GPUDirect RDMA); its subnets show the same. */
  vpc_type: Generated<'regular' | 'rdma'>;
  created: string;
  updated: string;
}

export interface VpcSubnetsTable {
  id: Generated<number>;
  vpc_id: number;
  account_id: number;
  label: string;
  /** Canonical IPv4 CIDR (`10.0.1.0/24`). */
  ipv4: string;
  /** First address of the range as a number, and its size: overlap checks in SQL. */
  ipv4_start: number;
  ipv4_end: number;
  /** The subnet's IPv6 range, inside its VPC's; null: IPv4 only. */
  ipv6: string | null;
  created: string;
  updated: string;
}

export interface VpcTables {
  vpcs: VpcsTable;
  vpc_subnets: VpcSubnetsTable;
}
