import type { Database } from '../../db/database.js';
import type { FieldErrors } from '../../errors/errors.js';
import { numToIpv4 } from '../../lib/ip.js';
import { firstFree, type Net6, overlaps as overlaps6 } from '../networking/ipv6-math.js';
import { isTaken, loadSubnets, type SubnetInfo, takenIn } from '../vpcs/vpc-interfaces.js';
import { formatNet6, INTERFACE_PREFIX, inside, parseNet6 } from '../vpcs/vpc-ipv6.rules.js';
import { overlaps, parseRange, type Range4, usableBounds, within } from '../vpcs/vpcs.rules.js';
import { isVpcAddressIn } from './nodebalancers.repository.js';
import type { ApiNbVpcConfig, NbVpcInput } from './nodebalancers.schemas.js';

/** The prefix of a NodeBalancer's range in a subnet (the provider's web manager: "a /30"). */
export const NB_RANGE_PREFIX = 30;
const RANGE_SIZE = 2 ** (32 - NB_RANGE_PREFIX);

export interface NbVpcRow {
  id: number;
  nodebalancer_id: number;
  account_id: number;
  vpc_id: number;
  subnet_id: number;
  ipv4_range: string;
  ipv4_start: number;
  ipv4_end: number;
  ipv6_range: string | null;
  created: string;
}

/** A checked VPC configuration of a create request, ready to insert. */
export interface PreparedNbVpc {
  subnet: SubnetInfo;
  range: Range4;
  /** Its /64 of the subnet's IPv6 range (a dual-stack subnet), else null. */
  ipv6: Net6 | null;
}

export const NO_FREE_RANGE6 = 'The subnet has no free /64 range for the NodeBalancer';

/**
 * The IPv6 range of a configuration in a dual-stack subnet: `ipv6_range` a /64 inside the
 * subnet's range that no interface and no other NodeBalancer holds, or, omitted (null, `""`), the
 * lowest free /64. In an IPv4-only subnet a given `ipv6_range` is refused. Problems go into `fe`.
 */
function chooseIpv6(
  fe: FieldErrors,
  field: string,
  subnet: SubnetInfo,
  text: string | null | undefined,
  used: readonly Net6[],
): Net6 | null | undefined {
  const asked = text === undefined || text === null || text === '' ? undefined : text;
  if (!subnet.ipv6) {
    if (asked === undefined) return null;
    fe.add(field, 'The subnet has no IPv6 range: ipv6_range needs a dual-stack subnet');
    return undefined;
  }
  if (asked === undefined) {
    const got = firstFree(subnet.ipv6, INTERFACE_PREFIX, used);
    if (!got) fe.add(field, NO_FREE_RANGE6);
    return got;
  }
  const net = parseNet6(asked);
  if (!net || net.bits !== INTERFACE_PREFIX) {
    fe.add(field, 'ipv6_range must be a /64 IPv6 network, such as 2001:db8:8500:1::/64');
    return undefined;
  }
  if (!inside(net, subnet.ipv6)) {
    fe.add(field, `ipv6_range must be inside the subnet's range ${formatNet6(subnet.ipv6)}`);
    return undefined;
  }
  if (used.some((u) => overlaps6(u, net))) {
    fe.add(field, 'ipv6_range overlaps a range already in use in the subnet');
    return undefined;
  }
  return net;
}

export const NO_FREE_RANGE = 'The subnet has no free /30 range for the NodeBalancer';

/** A range's addresses free of every interface address and range and other NodeBalancers' ranges. */
function isFree(taken: Awaited<ReturnType<typeof takenIn>>, r: Range4): boolean {
  if (taken.ranges.some((t) => overlaps(t, r))) return false;
  for (let n = r.start; n <= r.end; n++) if (isTaken(taken, n)) return false;
  return true;
}

/**
 * The `vpcs` of a NodeBalancer create: each names a subnet of the account in the NodeBalancer's
 * region (once), and its `ipv4_range` is a canonical /30 inside the subnet's usable addresses
 * that no interface address or range and no other NodeBalancer holds; without it the lowest free
 * aligned /30 is chosen. With `ipv4_range_auto_assign`, `ipv4_range` (if given) may be a larger
 * range of the subnet, from which the lowest free /30 is chosen (the clients: "allocating smaller
 * /30 subnets for each NodeBalancer's backends"). In a dual-stack subnet the configuration also
 * gets a /64 (see chooseIpv6). Subnets are locked (PostgreSQL), so two concurrent choices in one
 * subnet are made one after the other.
 */
export async function prepareNbVpcs(
  db: Database,
  fe: FieldErrors,
  accountId: number,
  region: string,
  list: readonly NbVpcInput[],
): Promise<PreparedNbVpc[]> {
  const ids = [...new Set(list.map((v) => v.subnet_id))].sort((a, b) => a - b);
  const subnets = await loadSubnets(db, accountId, ids, true);
  const out: PreparedNbVpc[] = [];
  const seen = new Set<number>();
  for (const [i, v] of list.entries()) {
    const at = `vpcs.${i}.`;
    const subnet = subnets.get(v.subnet_id);
    if (!subnet) {
      fe.add(`${at}subnet_id`, 'Subnet not found');
      continue;
    }
    if (seen.has(v.subnet_id)) {
      fe.add(`${at}subnet_id`, 'Subnet IDs must be unique');
      continue;
    }
    seen.add(v.subnet_id);
    if (subnet.region !== region) {
      fe.add(`${at}subnet_id`, 'The subnet must be in the same region as the NodeBalancer');
      continue;
    }
    const taken = await takenIn(db, subnet.id, {
      accountId,
      instanceId: null,
      region,
      creating: true,
    });
    const ipv6 = chooseIpv6(fe, `${at}ipv6_range`, subnet, v.ipv6_range, taken.v6);
    if (ipv6 === undefined) continue;
    const usable = usableBounds(subnet);
    let { first, last } = usable;
    const given = v.ipv4_range ?? undefined;
    if (given !== undefined && v.ipv4_range_auto_assign === true) {
      // A range of the subnet to choose the /30 from.
      const space = parseRange(given);
      if (!space || space.prefix > NB_RANGE_PREFIX) {
        fe.add(
          `${at}ipv4_range`,
          'ipv4_range must be an IPv4 range of at most /30 in canonical CIDR form, such as 10.0.0.0/28',
        );
        continue;
      }
      if (!within(space, subnet)) {
        fe.add(`${at}ipv4_range`, `ipv4_range must be inside the subnet ${subnet.cidr}`);
        continue;
      }
      first = Math.max(first, space.start);
      last = Math.min(last, space.end);
    } else if (given !== undefined) {
      const r = parseRange(given);
      if (!r || r.prefix !== NB_RANGE_PREFIX) {
        fe.add(
          `${at}ipv4_range`,
          'ipv4_range must be a /30 IPv4 range in canonical CIDR form, such as 10.0.0.64/30',
        );
      } else if (!within(r, subnet)) {
        fe.add(`${at}ipv4_range`, `ipv4_range must be inside the subnet ${subnet.cidr}`);
      } else if (!within(r, { start: first, end: last })) {
        fe.add(
          `${at}ipv4_range`,
          'ipv4_range cannot hold the first two or last two addresses of the subnet',
        );
      } else if (!isFree(taken, r)) {
        fe.add(`${at}ipv4_range`, 'ipv4_range overlaps addresses already in use');
      } else out.push({ subnet, range: r, ipv6 });
      continue;
    }
    let start = Math.ceil(first / RANGE_SIZE) * RANGE_SIZE;
    let picked: Range4 | undefined;
    for (; start + RANGE_SIZE - 1 <= last; start += RANGE_SIZE) {
      const r = parseRange(`${numToIpv4(start)}/${NB_RANGE_PREFIX}`);
      if (r && isFree(taken, r)) {
        picked = r;
        break;
      }
    }
    if (picked) out.push({ subnet, range: picked, ipv6 });
    else fe.add(given !== undefined ? `${at}ipv4_range` : `${at}subnet_id`, NO_FREE_RANGE);
  }
  return out;
}

export async function insertNbVpcs(
  db: Database,
  nbId: number,
  accountId: number,
  list: readonly PreparedNbVpc[],
  nowIso: string,
): Promise<void> {
  for (const v of list) {
    await db.db
      .insertInto('nodebalancer_vpcs')
      .values({
        nodebalancer_id: nbId,
        account_id: accountId,
        vpc_id: v.subnet.vpc_id,
        subnet_id: v.subnet.id,
        ipv4_range: v.range.cidr,
        ipv4_start: v.range.start,
        ipv4_end: v.range.end,
        ipv6_range: v.ipv6 ? formatNet6(v.ipv6) : null,
        created: nowIso,
      })
      .execute();
  }
}

export function toApiNbVpc(r: NbVpcRow): ApiNbVpcConfig {
  return {
    id: r.id,
    nodebalancer_id: r.nodebalancer_id,
    vpc_id: r.vpc_id,
    subnet_id: r.subnet_id,
    ipv4_range: r.ipv4_range,
    ipv6_range: r.ipv6_range,
  };
}

/**
 * The VPC configuration a node at `ip` is reached through, given the node's `subnet_id`: the
 * NodeBalancer must have a configuration in that subnet, and `ip` must be the VPC address of an
 * interface (of any profile, or an instance's own) in the subnet. Problems go into `fe` under
 * `at`; returns the configuration's id.
 */
export async function vpcConfigForNode(
  db: Database,
  fe: FieldErrors,
  at: string,
  nbId: number,
  subnetId: number,
  ip: string,
): Promise<number | null> {
  const config = await db.db
    .selectFrom('nodebalancer_vpcs')
    .selectAll()
    .where('nodebalancer_id', '=', nbId)
    .where('subnet_id', '=', subnetId)
    .executeTakeFirst();
  if (!config) {
    fe.add(`${at}subnet_id`, 'The NodeBalancer has no VPC configuration for this subnet');
    return null;
  }
  if (!(await isVpcAddressIn(db, subnetId, ip)))
    fe.add(
      `${at}address`,
      'address must be the VPC address of a Compute interface in the subnet given as subnet_id',
    );
  return config.id;
}
