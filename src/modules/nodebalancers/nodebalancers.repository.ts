import type { Database } from '../../db/database.js';
import { toBool } from '../../db/database.js';
import type { FilterSpec } from '../../lib/filter.js';
import type { EntityRef } from '../events/events.types.js';
import { defaultRdns } from '../networking/ip-allocator.js';
import { tagsFilter, tagsOf } from '../tags/tags.repository.js';
import { type ConfigValues, UDP_SESSION_TIMEOUT } from './nodebalancers.rules.js';
import type { ApiConfig, ApiNode, ApiNodeBalancer } from './nodebalancers.schemas.js';
import type {
  NodeBalancerConfigsTable,
  NodeBalancerNodesTable,
  NodeBalancersTable,
} from './nodebalancers.table.js';
import { locksOf } from '../locks/locks.repository.js';

type WithId<T> = Omit<T, 'id'> & { id: number };
export type NbRow = WithId<NodeBalancersTable>;
export type ConfigRow = WithId<NodeBalancerConfigsTable>;
export type NodeRow = WithId<NodeBalancerNodesTable>;

/** Filterable fields of NodeBalancer (reference: label, region, ipv4, tags). */
export const NB_FILTERS: FilterSpec = {
  label: { kind: 'string', column: 'nodebalancers.label' },
  region: { kind: 'string', column: 'nodebalancers.region' },
  ipv4: { kind: 'string', column: 'nodebalancers.ipv4' },
  tags: tagsFilter('nodebalancer', 'nodebalancers.id'),
};

export const nbRef = (id: number, label: string): EntityRef => ({
  type: 'nodebalancer',
  id,
  label,
  url: `/v4/nodebalancers/${id}`,
});

export async function findNb(
  db: Database,
  accountId: number,
  id: number,
  lock = false,
): Promise<NbRow | undefined> {
  const q = db.db
    .selectFrom('nodebalancers')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId);
  return (lock ? db.forUpdate(q) : q).executeTakeFirst();
}

export async function findConfig(
  db: Database,
  nbId: number,
  id: number,
): Promise<ConfigRow | undefined> {
  return db.db
    .selectFrom('nodebalancer_configs')
    .selectAll()
    .where('id', '=', id)
    .where('nodebalancer_id', '=', nbId)
    .executeTakeFirst();
}

export async function findNode(
  db: Database,
  configId: number,
  id: number,
): Promise<NodeRow | undefined> {
  return db.db
    .selectFrom('nodebalancer_nodes')
    .selectAll()
    .where('id', '=', id)
    .where('config_id', '=', configId)
    .executeTakeFirst();
}

export async function toApiNbs(db: Database, rows: readonly NbRow[]): Promise<ApiNodeBalancer[]> {
  const ids = rows.map((r) => r.id);
  const [tags, locks] = await Promise.all([
    tagsOf(db, 'nodebalancer', ids),
    locksOf(db, 'nodebalancer', ids),
  ]);
  return rows.map((r) => ({
    id: r.id,
    label: r.label,
    region: r.region,
    hostname: defaultRdns(r.ipv4),
    ipv4: r.ipv4,
    ipv6: r.ipv6,
    created: r.created,
    updated: r.updated,
    client_conn_throttle: r.client_conn_throttle,
    // Stratus carries no traffic: nothing is transferred.
    transfer: { total: 0, out: 0, in: 0 },
    tags: tags.get(r.id) ?? [],
    type: r.type,
    client_udp_sess_throttle: r.client_udp_sess_throttle,
    // The real service's values for what Stratus does not serve: a public front end (VPC
    // front ends are not served), no LKE cluster.
    frontend_address_type: 'public' as const,
    frontend_vpc_subnet_id: null,
    lke_cluster: null,
    locks: locks.get(r.id) ?? [],
  }));
}

/**
 * The simulated health check: a node is UP while its address is a private address of an
 * instance of the account in the NodeBalancer's region that is running, DOWN otherwise.
 */
export async function nodeStatuses(
  db: Database,
  nb: NbRow,
  nodes: readonly NodeRow[],
): Promise<Map<number, 'UP' | 'DOWN'>> {
  const plain = nodes.filter((n) => n.vpc_config_id === null);
  const ips = [...new Set(plain.map((n) => n.ip))];
  const up = new Set<string>();
  if (ips.length > 0) {
    const rows = await db.db
      .selectFrom('ip_addresses')
      .innerJoin('instances', 'instances.id', 'ip_addresses.instance_id')
      .select('ip_addresses.address')
      .where('ip_addresses.region', '=', nb.region)
      .where('ip_addresses.account_id', '=', nb.account_id)
      .where('ip_addresses.kind', '=', 'private')
      .where('ip_addresses.address', 'in', ips)
      .where('instances.status', '=', 'running')
      .execute();
    for (const r of rows) up.add(r.address);
  }
  // Nodes reached through a VPC: UP while an interface of a running instance in the
  // configuration's subnet holds the address.
  const inVpc = nodes.filter((n) => n.vpc_config_id !== null);
  const upInVpc = new Set<string>();
  if (inVpc.length > 0) {
    const cfgIds = [...new Set(inVpc.map((n) => n.vpc_config_id as number))];
    const vips = [...new Set(inVpc.map((n) => n.ip))];
    for (const table of ['config_interfaces', 'compute_interfaces'] as const) {
      const rows = await db.db
        .selectFrom(`${table} as ci` as 'config_interfaces as ci')
        .innerJoin('instances as i', 'i.id', 'ci.instance_id')
        .innerJoin('nodebalancer_vpcs as nv', 'nv.subnet_id', 'ci.subnet_id')
        .select(['nv.id as cfg', 'ci.ipv4_vpc as ip'])
        .where('nv.id', 'in', cfgIds)
        .where('ci.purpose', '=', 'vpc')
        .where('ci.ipv4_vpc', 'in', vips)
        .where('i.status', '=', 'running')
        .execute();
      for (const r of rows) upInVpc.add(`${r.cfg} ${r.ip}`);
    }
  }
  return new Map(
    nodes.map((n) => [
      n.id,
      (n.vpc_config_id === null ? up.has(n.ip) : upInVpc.has(`${n.vpc_config_id} ${n.ip}`))
        ? 'UP'
        : 'DOWN',
    ]),
  );
}

export async function toApiNodes(
  db: Database,
  nb: NbRow,
  rows: readonly NodeRow[],
): Promise<ApiNode[]> {
  const status = await nodeStatuses(db, nb, rows);
  return rows.map((r) => ({
    id: r.id,
    address: `${r.ip}:${r.port}`,
    label: r.label,
    status: status.get(r.id) ?? 'unknown',
    weight: r.weight,
    mode: r.mode,
    config_id: r.config_id,
    nodebalancer_id: r.nodebalancer_id,
    vpc_config_id: r.vpc_config_id,
  }));
}

const REDACTED = '<REDACTED>';

export async function toApiConfigs(
  db: Database,
  nb: NbRow,
  rows: readonly ConfigRow[],
): Promise<ApiConfig[]> {
  const ids = rows.map((r) => r.id);
  const nodes =
    ids.length === 0
      ? []
      : await db.db
          .selectFrom('nodebalancer_nodes')
          .selectAll()
          .where('config_id', 'in', ids)
          .execute();
  const status = await nodeStatuses(db, nb, nodes);
  return rows.map((r) => {
    const mine = nodes.filter((n) => n.config_id === r.id);
    const up = mine.filter((n) => status.get(n.id) === 'UP').length;
    return {
      id: r.id,
      ...valuesOf(r),
      nodebalancer_id: r.nodebalancer_id,
      ssl_commonname: r.ssl_commonname ?? '',
      ssl_fingerprint: r.ssl_fingerprint ?? '',
      ssl_cert: r.ssl_cert === null ? null : REDACTED,
      ssl_key: r.ssl_key_hash === null ? null : REDACTED,
      nodes_status: { up, down: mine.length - up },
      udp_session_timeout: UDP_SESSION_TIMEOUT,
    };
  });
}

/** The settable values of a stored config. */
export function valuesOf(r: ConfigRow): ConfigValues {
  return {
    port: r.port,
    protocol: r.protocol,
    algorithm: r.algorithm,
    stickiness: r.stickiness,
    check: r.check_type,
    check_interval: r.check_interval,
    check_timeout: r.check_timeout,
    check_attempts: r.check_attempts,
    check_path: r.check_path,
    check_body: r.check_body,
    check_passive: toBool(r.check_passive),
    proxy_protocol: r.proxy_protocol,
    cipher_suite: r.cipher_suite,
    udp_check_port: r.udp_check_port,
  };
}

/** The columns of config values. */
export function configColumns(c: ConfigValues) {
  return {
    port: c.port,
    protocol: c.protocol,
    algorithm: c.algorithm,
    stickiness: c.stickiness,
    check_type: c.check,
    check_interval: c.check_interval,
    check_timeout: c.check_timeout,
    check_attempts: c.check_attempts,
    check_path: c.check_path,
    check_body: c.check_body,
    check_passive: c.check_passive ? 1 : 0,
    proxy_protocol: c.proxy_protocol,
    cipher_suite: c.cipher_suite,
    udp_check_port: c.udp_check_port,
  };
}

/** Whether `ip` is a private IPv4 address of an instance of the account in the region. */
export async function isInstancePrivateIp(
  db: Database,
  accountId: number,
  region: string,
  ip: string,
): Promise<boolean> {
  const row = await db.db
    .selectFrom('ip_addresses')
    .select('id')
    .where('account_id', '=', accountId)
    .where('region', '=', region)
    .where('kind', '=', 'private')
    .where('address', '=', ip)
    .where('instance_id', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether `ip` is the VPC address of an interface (of a profile, or an instance's own) in the subnet. */
export async function isVpcAddressIn(db: Database, subnetId: number, ip: string): Promise<boolean> {
  for (const table of ['config_interfaces', 'compute_interfaces'] as const) {
    const row = await db.db
      .selectFrom(`${table} as ci` as 'config_interfaces as ci')
      .select('ci.id')
      .where('ci.purpose', '=', 'vpc')
      .where('ci.subnet_id', '=', subnetId)
      .where('ci.ipv4_vpc', '=', ip)
      .limit(1)
      .executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** Id and label of every NodeBalancer of an account, by id (grants views and checks). */
export async function nodebalancerLabels(
  db: Database,
  accountId: number,
): Promise<{ id: number; label: string }[]> {
  return db.db
    .selectFrom('nodebalancers')
    .select(['id', 'label'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}
