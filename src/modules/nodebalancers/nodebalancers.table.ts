import type { Generated } from 'kysely';

/** NodeBalancers: a public IPv4 (a row of `ip_addresses` without instance) and an IPv6 address. */
export interface NodeBalancersTable {
  id: Generated<number>;
  account_id: number;
  label: string;
  region: string;
  ipv4: string;
  ipv6: string | null;
  client_conn_throttle: number;
  client_udp_sess_throttle: number;
  /** The plan: `common` or `premium` (0053). */
  type: string;
  created: string;
  updated: string;
}

/** One port of a NodeBalancer. The TLS key is never stored: only its SHA-256 (it is never shown). */
export interface NodeBalancerConfigsTable {
  id: Generated<number>;
  nodebalancer_id: number;
  port: number;
  protocol: string;
  algorithm: string;
  stickiness: string;
  /** `check` of the API. */
  check_type: string;
  check_interval: number;
  check_timeout: number;
  check_attempts: number;
  check_path: string;
  check_body: string;
  check_passive: number;
  proxy_protocol: string;
  cipher_suite: string;
  ssl_cert: string | null;
  ssl_key_hash: string | null;
  /** The TLS private key, sealed (src/modules/object-storage/objects.crypto.ts). */
  ssl_key_sealed: string | null;
  ssl_commonname: string | null;
  ssl_fingerprint: string | null;
  /** The port UDP health checks go to (udp configs). */
  udp_check_port: number;
  created: string;
  updated: string;
}

/** A backend of a config: a private IPv4 address and port. */
export interface NodeBalancerNodesTable {
  id: Generated<number>;
  config_id: number;
  nodebalancer_id: number;
  label: string;
  ip: string;
  port: number;
  weight: number;
  mode: string;
  /** The VPC configuration through which the node is reached (its address is a VPC address). */
  vpc_config_id: number | null;
  created: string;
}

/**
 * A NodeBalancer's VPC configuration: a /30 of a subnet of the account (the NodeBalancer's
 * addresses in the VPC), through which nodes are reached by their VPC addresses.
 */
export interface NodeBalancerVpcsTable {
  id: Generated<number>;
  nodebalancer_id: number;
  account_id: number;
  vpc_id: number;
  subnet_id: number;
  ipv4_range: string;
  /** First and last address of the range as numbers: overlap checks in SQL. */
  ipv4_start: number;
  ipv4_end: number;
  /** The range in the subnet's IPv6 range (a dual-stack subnet); null otherwise. */
  ipv6_range: string | null;
  created: string;
}

export interface NodeBalancerTables {
  nodebalancers: NodeBalancersTable;
  nodebalancer_configs: NodeBalancerConfigsTable;
  nodebalancer_nodes: NodeBalancerNodesTable;
  nodebalancer_vpcs: NodeBalancerVpcsTable;
}
