import { rememberVlans } from '../networking/vlans.service.js';
import type { Database } from '../../db/database.js';
import type { FieldErrors } from '../../errors/errors.js';
import { ipv4ToNum, numToIpv4 } from '../../lib/ip.js';
import type { NormalizedInterface } from '../compute/interfaces.rules.js';
import type { Net6 } from '../networking/ipv6-math.js';
import { blocksOf, completeInterfaceIpv6, parseNet6, readInterfaceIpv6 } from './vpc-ipv6.rules.js';
import { overlaps, parseRange, type Range4, usableBounds, within } from './vpcs.rules.js';

const RANGE_FORM = 'ip_ranges must be IPv4 ranges in canonical CIDR form, such as 10.0.0.64/26';

/** A subnet as the interface rules need it: its VPC, region and range. */
export interface SubnetInfo extends Range4 {
  id: number;
  vpc_id: number;
  region: string;
  /** The subnet's IPv6 range (a dual-stack subnet), if any. */
  ipv6?: Net6 | undefined;
}

/** The subnet ids named by a request's interfaces (vpc ones with an integer `subnet_id`). */
export function subnetIdsOf(
  list: readonly { purpose?: string; subnet_id?: number | null }[] | null | undefined,
): number[] {
  const ids = (list ?? [])
    .filter((i) => i.purpose === 'vpc' && typeof i.subnet_id === 'number')
    .map((i) => i.subnet_id as number);
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * The account's subnets among `ids`, locked in id order when `lock` (PostgreSQL): address
 * choices in a subnet serialise on its row, and a subnet being deleted is waited for.
 */
export async function loadSubnets(
  db: Database,
  accountId: number,
  ids: readonly number[],
  lock = false,
): Promise<Map<number, SubnetInfo>> {
  const out = new Map<number, SubnetInfo>();
  if (ids.length === 0) return out;
  const q = db.db
    .selectFrom('vpc_subnets as s')
    .innerJoin('vpcs as v', 'v.id', 's.vpc_id')
    .select(['s.id', 's.vpc_id', 's.ipv4', 's.ipv6', 'v.region'])
    .where('s.account_id', '=', accountId)
    .where('s.id', 'in', [...ids])
    .orderBy('s.id');
  const rows = await (lock && db.dialect === 'postgres' ? q.forUpdate('s') : q).execute();
  for (const r of rows) {
    const range = parseRange(r.ipv4);
    const ipv6 = r.ipv6 === null ? undefined : parseNet6(r.ipv6);
    if (range) out.set(r.id, { ...range, id: r.id, vpc_id: r.vpc_id, region: r.region, ipv6 });
  }
  return out;
}

/** What other instances hold in a subnet: single addresses and ranges. */
export interface Taken {
  addresses: Set<number>;
  ranges: Range4[];
  /** The IPv6 /64s (SLAAC and routed) other interfaces hold in the subnet. */
  v6: Net6[];
}

/**
 * What a subnet's other interfaces hold: those of other instances, and those of the same config
 * (an instance's other profiles may reuse its address). `interfaceId`: the interface itself.
 */
export async function takenIn(db: Database, subnetId: number, target: VpcTarget): Promise<Taken> {
  const { instanceId, configId, interfaceId } = target;
  let q = db.db
    .selectFrom('config_interfaces')
    .select(['ipv4_vpc', 'ip_ranges', 'ipv6'])
    .where('purpose', '=', 'vpc')
    .where('subnet_id', '=', subnetId);
  if (instanceId !== null) {
    q = q.where((eb) =>
      eb.or([
        eb('instance_id', '<>', instanceId),
        eb.and([eb('config_id', '=', configId ?? -1), eb('id', '<>', interfaceId ?? -1)]),
      ]),
    );
  }
  const taken: Taken = { addresses: new Set(), ranges: [], v6: [] };
  // Interfaces of the compute generation (an instance's own): all but the one being changed.
  let own = db.db
    .selectFrom('compute_interfaces')
    .select(['ipv4_vpc', 'ip_ranges', 'ipv6'])
    .where('purpose', '=', 'vpc')
    .where('subnet_id', '=', subnetId);
  if (target.computeInterfaceId !== undefined)
    own = own.where('id', '<>', target.computeInterfaceId);
  for (const r of [...(await q.execute()), ...(await own.execute())]) {
    if (r.ipv4_vpc !== null) taken.addresses.add(ipv4ToNum(r.ipv4_vpc));
    for (const cidr of r.ip_ranges === null ? [] : (JSON.parse(r.ip_ranges) as string[])) {
      const range = parseRange(cidr);
      if (range) taken.ranges.push(range);
    }
    taken.v6.push(...blocksOf(readInterfaceIpv6(r.ipv6)));
  }
  // The /30 ranges (and /64s) of NodeBalancers in the subnet (src/modules/nodebalancers/nb-vpcs.ts).
  const nbs = await db.db
    .selectFrom('nodebalancer_vpcs')
    .select(['ipv4_range', 'ipv6_range'])
    .where('subnet_id', '=', subnetId)
    .execute();
  for (const r of nbs) {
    const range = parseRange(r.ipv4_range);
    if (range) taken.ranges.push(range);
    const v6 = r.ipv6_range === null ? undefined : parseNet6(r.ipv6_range);
    if (v6) taken.v6.push(v6);
  }
  return taken;
}

export const isTaken = (t: Taken, n: number) =>
  t.addresses.has(n) || t.ranges.some((r) => n >= r.start && n <= r.end);

/** The instance whose interfaces are checked; `creating`: the instance create request. */
export interface VpcTarget {
  accountId: number;
  /** null while the instance does not exist yet. */
  instanceId: number | null;
  region: string;
  creating: boolean;
  /** The config the interfaces join without replacing its list (add, update), and the interface updated. */
  configId?: number;
  interfaceId?: number;
  /** The instance's own interface (compute generation) being updated. */
  computeInterfaceId?: number;
}

/**
 * Completes the vpc interfaces of `list` against the subnets' rows, in place: `vpc_id` from the
 * subnet; the subnet in the instance's region; `ipv4.vpc` inside the subnet, not one of its
 * first two or last two addresses and not held by another instance (chosen when omitted);
 * `ipv4.nat_1_1` a public IPv4 of the instance (or `any`); `ip_ranges` canonical ranges inside
 * the subnet that no other instance holds. `at(n)` names the interface's field path.
 * The subnets were checked to exist by the caller's `subnetExists`. Every profile-interface write
 * passes here in its transaction, so the VLANs the list names are recorded here too (they
 * outlive their interfaces: see src/modules/networking/vlans.service.ts).
 */
export async function completeVpcInterfaces(
  db: Database,
  fe: FieldErrors,
  at: (n: number, field: string) => string,
  list: NormalizedInterface[],
  subnets: ReadonlyMap<number, SubnetInfo>,
  target: VpcTarget,
): Promise<void> {
  await rememberVlans(
    db,
    target.accountId,
    target.region,
    list.flatMap((i) => (i.purpose === 'vlan' && i.label ? [i.label] : [])),
  );
  // Addresses chosen in this request, by subnet, so two interfaces never get the same one.
  const chosen = new Map<number, Set<number>>();
  // IPv6 /64s chosen in this request, by subnet.
  const chosen6 = new Map<number, Net6[]>();
  for (const [n, i] of list.entries()) {
    if (i.purpose !== 'vpc' || i.subnet_id === null) continue;
    if (i.ip_ranges !== null && i.ip_ranges.length === 0) i.ip_ranges = null;
    const subnet = subnets.get(i.subnet_id);
    if (!subnet) {
      // Reported missing by the purpose rules; the ranges' form is still checked.
      (i.ip_ranges ?? []).forEach((text, k) => {
        if (!parseRange(text)) fe.add(at(n, `ip_ranges.${k}`), RANGE_FORM);
      });
      continue;
    }
    i.vpc_id = subnet.vpc_id;
    if (subnet.region !== target.region) {
      fe.add(at(n, 'subnet_id'), 'The subnet must be in the same region as the instance');
      continue;
    }
    const taken = await takenIn(db, subnet.id, target);
    const mine = chosen.get(subnet.id) ?? new Set<number>();
    chosen.set(subnet.id, mine);
    const { first, last } = usableBounds(subnet);
    if (i.ipv4_vpc !== null) {
      const num = ipv4ToNum(i.ipv4_vpc);
      if (Number.isNaN(num)) continue; // reported by the interface rules
      if (num < subnet.start || num > subnet.end)
        fe.add(at(n, 'ipv4.vpc'), `ipv4.vpc must be inside the subnet ${subnet.cidr}`);
      else if (num < first || num > last)
        fe.add(
          at(n, 'ipv4.vpc'),
          'ipv4.vpc cannot be one of the first two or last two addresses of the subnet',
        );
      else if (isTaken(taken, num) || mine.has(num))
        fe.add(at(n, 'ipv4.vpc'), 'ipv4.vpc is already in use');
      else mine.add(num);
    } else {
      let pick = first;
      while (pick <= last && (isTaken(taken, pick) || mine.has(pick))) pick++;
      if (pick > last) fe.add(at(n, 'subnet_id'), 'The subnet has no free address');
      else {
        mine.add(pick);
        i.ipv4_vpc = numToIpv4(pick);
      }
    }
    await checkNat(db, fe, at(n, 'ipv4.nat_1_1'), i.ipv4_nat_1_1, target);
    checkRanges(fe, (k) => at(n, `ip_ranges.${k}`), i, subnet, taken);
    const mine6 = chosen6.get(subnet.id) ?? [];
    chosen6.set(subnet.id, mine6);
    const held = [...taken.v6, ...mine6];
    i.ipv6 = completeInterfaceIpv6(fe, (f) => at(n, f), i.ipv6_request, i.ipv6, subnet.ipv6, held);
    mine6.push(...blocksOf(i.ipv6));
  }
}

/** A specific 1:1 NAT address: a public IPv4 of the instance (never at instance create). */
async function checkNat(
  db: Database,
  fe: FieldErrors,
  field: string,
  nat: string | null,
  target: VpcTarget,
): Promise<void> {
  if (nat === null || nat === 'any' || fe.has(field) || Number.isNaN(ipv4ToNum(nat))) return;
  const own =
    target.instanceId === null
      ? undefined
      : await db.db
          .selectFrom('ip_addresses')
          .select('id')
          .where('instance_id', '=', target.instanceId)
          .where('kind', '=', 'public')
          .where('address', '=', nat)
          .executeTakeFirst();
  if (!own) {
    fe.add(field, 'nat_1_1 must be "any" or a public IPv4 address of this instance');
    return;
  }
  // The spec: an address no other instance shares (IP sharing, the networking area).
  const shared = await db.db
    .selectFrom('ip_shares')
    .select('id')
    .where('ip_id', '=', own.id)
    .executeTakeFirst();
  if (shared) fe.add(field, 'nat_1_1 cannot be an address shared with another instance');
}

function checkRanges(
  fe: FieldErrors,
  at: (k: number) => string,
  i: NormalizedInterface,
  subnet: SubnetInfo,
  taken: Taken,
): void {
  const seen: Range4[] = [];
  const own = i.ipv4_vpc === null ? Number.NaN : ipv4ToNum(i.ipv4_vpc);
  const { first, last } = usableBounds(subnet);
  for (const [k, text] of (i.ip_ranges ?? []).entries()) {
    const r = parseRange(text);
    if (!r) fe.add(at(k), RANGE_FORM);
    else if (!within(r, { start: first, end: last }))
      fe.add(at(k), `The range must be inside the usable addresses of the subnet ${subnet.cidr}`);
    else if (
      seen.some((s) => overlaps(s, r)) ||
      (own >= r.start && own <= r.end) ||
      taken.ranges.some((s) => overlaps(s, r)) ||
      [...taken.addresses].some((a) => a >= r.start && a <= r.end)
    )
      fe.add(at(k), 'The range overlaps addresses already in use');
    else seen.push(r);
  }
}

/** Field paths: of a list's items (`interfaces.0.ipv4.vpc`) or of a single interface body. */
export const listField = (field: string) => (n: number, f: string) => `${field}.${n}.${f}`;
export const bodyField = (_n: number, f: string) => f;

/**
 * The VPC side of a compute interface check, in two calls: `subnetExists` for the purpose rules
 * (`checkInterface(s)`), then `complete` on the normalized list (see completeVpcInterfaces).
 * Loads, and locks when `lock`, the account's subnets the request names.
 */
export async function vpcInterfaceChecker(
  db: Database,
  accountId: number,
  input: readonly { purpose?: string; subnet_id?: number | null }[] | null | undefined,
  lock = true,
) {
  const subnets = await loadSubnets(db, accountId, subnetIdsOf(input), lock);
  return {
    subnetExists: (id: number) => subnets.has(id),
    complete: (
      fe: FieldErrors,
      at: (n: number, field: string) => string,
      list: NormalizedInterface[],
      target: VpcTarget,
    ) => completeVpcInterfaces(db, fe, at, list, subnets, target),
  };
}
