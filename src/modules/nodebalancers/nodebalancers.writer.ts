import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../errors/db-errors.js';
import { errors, type FieldErrors } from '../../errors/errors.js';
import {
  type ConfigRow,
  configColumns,
  isInstancePrivateIp,
  isVpcAddressIn,
  type NodeRow,
  valuesOf,
} from './nodebalancers.repository.js';
import {
  CONFIG_DEFAULTS,
  checkTls,
  configProblems,
  mergeConfig,
  NODE_MODE_DEFAULT,
  NODE_WEIGHT_DEFAULT,
  parseNodeAddress,
} from './nodebalancers.rules.js';
import type { ConfigInput, UpdateNodeInput } from './nodebalancers.schemas.js';
import { vpcConfigForNode } from './nb-vpcs.js';

export type ConfigColumns = ReturnType<typeof configColumns> & {
  ssl_cert: string | null;
  ssl_key_hash: string | null;
  ssl_key_sealed: string | null;
  ssl_commonname: string | null;
  ssl_fingerprint: string | null;
};

export interface NodeColumns {
  label: string;
  ip: string;
  port: number;
  weight: number;
  mode: string;
  /** The VPC configuration the node is reached through (null: a private address). */
  vpc_config_id: number | null;
}

/** A node checked at NodeBalancer create: its VPC configuration is known once inserted. */
export type PreparedNode = NodeColumns & { subnetId?: number };

/** The stored columns of a checked node. */
export function nodeColumnsOf(n: PreparedNode): NodeColumns {
  const { subnetId: _, ...cols } = n;
  return cols;
}

/**
 * Where a NodeBalancer is: nodes must be private addresses of the account's instances there, or
 * VPC addresses in the subnet of one of its VPC configurations (`subnet_id`). `nbId`: the
 * NodeBalancer, once it exists; `vpcSubnets`: the subnets of the configurations of a create.
 */
export interface NbScope {
  accountId: number;
  region: string;
  nbId?: number;
  vpcSubnets?: ReadonlySet<number>;
}

/** Seals a TLS private key for storage (the shared Sealer, loaded before the transaction). */
export type SealKey = (plain: string) => string;

/**
 * The TLS columns of a config. `https` needs a certificate and its key (given together, checked
 * as X.509, the key stored sealed; kept from before when neither is given); `http` and `tcp`
 * take neither.
 */
function tlsColumns(
  fe: FieldErrors,
  at: string,
  protocol: string,
  b: ConfigInput,
  existing: ConfigRow | undefined,
  seal: SealKey,
) {
  const none = {
    ssl_cert: null,
    ssl_key_hash: null,
    ssl_key_sealed: null,
    ssl_commonname: null,
    ssl_fingerprint: null,
  };
  if (protocol !== 'https') {
    if (b.ssl_cert) fe.add(`${at}ssl_cert`, `The ${protocol} protocol does not support ssl_cert`);
    if (b.ssl_key) fe.add(`${at}ssl_key`, `The ${protocol} protocol does not support ssl_key`);
    return none;
  }
  if (b.ssl_cert || b.ssl_key) {
    if (!b.ssl_cert) fe.add(`${at}ssl_cert`, 'ssl_cert is required with ssl_key');
    if (!b.ssl_key) fe.add(`${at}ssl_key`, 'ssl_key is required with ssl_cert');
    if (!b.ssl_cert || !b.ssl_key) return none;
    const facts = checkTls(fe, b.ssl_cert, b.ssl_key, at);
    if (!facts) return none;
    return {
      ssl_cert: b.ssl_cert,
      ssl_key_hash: facts.keyHash,
      ssl_key_sealed: seal(b.ssl_key),
      ssl_commonname: facts.commonname,
      ssl_fingerprint: facts.fingerprint,
    };
  }
  const keep =
    existing?.ssl_cert && existing.ssl_key_hash && b.ssl_cert !== null && b.ssl_key !== null;
  if (keep && existing) {
    return {
      ssl_cert: existing.ssl_cert,
      ssl_key_hash: existing.ssl_key_hash,
      ssl_key_sealed: existing.ssl_key_sealed,
      ssl_commonname: existing.ssl_commonname,
      ssl_fingerprint: existing.ssl_fingerprint,
    };
  }
  fe.add(`${at}ssl_cert`, 'The https protocol requires ssl_cert and ssl_key');
  fe.add(`${at}ssl_key`, 'The https protocol requires ssl_cert and ssl_key');
  return none;
}

/** A config's columns from a request over the stored config (or the defaults); problems into `fe`. */
export function prepareConfig(
  fe: FieldErrors,
  at: string,
  b: ConfigInput,
  seal: SealKey,
  existing?: ConfigRow,
): ConfigColumns {
  const values = mergeConfig(existing ? valuesOf(existing) : CONFIG_DEFAULTS, b);
  configProblems(fe, values, at);
  return { ...configColumns(values), ...tlsColumns(fe, at, values.protocol, b, existing, seal) };
}

/** A node's columns from a request over the stored node; the address is checked in the database. */
export async function prepareNode(
  db: Database,
  fe: FieldErrors,
  at: string,
  scope: NbScope,
  b: UpdateNodeInput,
  existing?: NodeRow,
): Promise<PreparedNode> {
  const out: PreparedNode = {
    label: b.label ?? existing?.label ?? '',
    ip: existing?.ip ?? '',
    port: existing?.port ?? 0,
    weight: b.weight ?? existing?.weight ?? NODE_WEIGHT_DEFAULT,
    mode: b.mode ?? existing?.mode ?? NODE_MODE_DEFAULT,
    vpc_config_id: existing?.vpc_config_id ?? null,
  };
  if (!existing && b.label === undefined) fe.add(`${at}label`, 'label is required');
  if (b.address === undefined && b.subnet_id === undefined) {
    if (!existing) fe.add(`${at}address`, 'address is required');
    return out;
  }
  const parsed =
    b.address === undefined ? { ip: out.ip, port: out.port } : parseNodeAddress(b.address);
  if (!parsed) {
    fe.add(
      `${at}address`,
      'address must be a private IPv4 address and a port, e.g. 192.168.210.120:80',
    );
    return out;
  }
  // The subnet the node is reached in: the one given, else (an update) that of its configuration.
  let subnetId = b.subnet_id;
  if (subnetId === undefined && existing?.vpc_config_id != null && scope.nbId !== undefined) {
    const cfg = await db.db
      .selectFrom('nodebalancer_vpcs')
      .select('subnet_id')
      .where('id', '=', existing.vpc_config_id)
      .executeTakeFirst();
    subnetId = cfg?.subnet_id;
  }
  if (subnetId !== undefined) {
    if (scope.nbId !== undefined) {
      const cfg = await vpcConfigForNode(db, fe, at, scope.nbId, subnetId, parsed.ip);
      return { ...out, ...parsed, vpc_config_id: cfg };
    }
    if (!scope.vpcSubnets?.has(subnetId))
      fe.add(`${at}subnet_id`, 'The NodeBalancer has no VPC configuration for this subnet');
    else if (!(await isVpcAddressIn(db, subnetId, parsed.ip)))
      fe.add(
        `${at}address`,
        'address must be the VPC address of a Compute interface in the subnet given as subnet_id',
      );
    return { ...out, ...parsed, vpc_config_id: null, subnetId };
  }
  if (!(await isInstancePrivateIp(db, scope.accountId, scope.region, parsed.ip))) {
    fe.add(
      `${at}address`,
      "address must be a private IPv4 address of one of the account's Compute instances in the NodeBalancer's region",
    );
  }
  return { ...out, ...parsed, vpc_config_id: null };
}

export async function insertConfig(
  db: Database,
  nbId: number,
  c: ConfigColumns,
  nowIso: string,
): Promise<number> {
  const row = await db.db
    .insertInto('nodebalancer_configs')
    .values({ nodebalancer_id: nbId, ...c, created: nowIso, updated: nowIso })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertNode(
  db: Database,
  nbId: number,
  configId: number,
  n: NodeColumns,
  nowIso: string,
): Promise<number> {
  const row = await db.db
    .insertInto('nodebalancer_nodes')
    .values({
      nodebalancer_id: nbId,
      config_id: configId,
      label: n.label,
      ip: n.ip,
      port: n.port,
      weight: n.weight,
      mode: n.mode,
      vpc_config_id: n.vpc_config_id,
      created: nowIso,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Addresses (`ip:port`) repeated within one list of nodes, each reported at its index. */
export function duplicateAddresses(
  fe: FieldErrors,
  at: string,
  nodes: readonly { address?: string }[],
): void {
  const seen = new Set<string>();
  nodes.forEach((n, i) => {
    if (n.address === undefined) return;
    if (seen.has(n.address))
      fe.add(`${at}${i}.address`, 'Each node of a config must have its own address');
    seen.add(n.address);
  });
}

/**
 * A transaction whose unique constraint (label, port, node address) was broken by a concurrent
 * request that passed the same check first: 400 naming the field, as the check would have said.
 */
export async function uniqueAs<T>(work: Promise<T>, field: string, reason: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.invalidField(field, reason);
    throw err;
  }
}
