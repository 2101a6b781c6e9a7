import type { Static } from '@sinclair/typebox';
import { type Selectable, sql } from 'kysely';
import type { Principal } from '../../auth/principal.js';
import type { Database } from '../../db/database.js';
import { parseJson, toBool } from '../../db/database.js';
import { errors, FieldErrors } from '../../errors/errors.js';
import type { Clock } from '../../lib/clock.js';
import { ipv4ToNum, isIpv4, numToIpv4 } from '../../lib/ip.js';
import { isoSeconds } from '../../lib/time.js';
import { entityRefs } from '../events/events.types.js';
import type { EventWriter } from '../events/events.writer.js';
import { eui64, type IpAllocator } from '../networking/ip-allocator.js';
import type { FirewallsService } from '../networking/firewalls.service.js';
import { sharesOf } from '../networking/ipv6.repository.js';
import { allocateRange } from '../networking/ipv6.service.js';
import { rememberVlans } from '../networking/vlans.service.js';
import type { ApiFirewall } from '../networking/firewalls.schemas.js';
import type { Page, PageParams } from '../../lib/pagination.js';
import { refuseIfSubresourcesLocked } from '../locks/locks.repository.js';
import {
  completeVpcInterfaces,
  isTaken,
  loadSubnets,
  type SubnetInfo,
  takenIn,
  type VpcTarget,
} from '../vpcs/vpc-interfaces.js';
import {
  apiInterfaceIpv6,
  type InterfaceIpv6,
  type InterfaceIpv6Request,
  readInterfaceIpv6,
  storeInterfaceIpv6,
} from '../vpcs/vpc-ipv6.rules.js';
import { parseRange, usableBounds } from '../vpcs/vpcs.rules.js';
import type {
  ComputeInterfaceCreateBody,
  ComputeInterfaceUpdateBody,
  InterfaceSettingsBody,
  UpgradeInterfacesBody,
} from './compute-interfaces.schemas.js';
import { type InstanceRow, insertIp, loadInstance } from './compute.repository.js';
import type { ComputeInterfacesTable } from './compute.table.js';
import type { NormalizedInterface } from './interfaces.rules.js';
import { checkVlanRegion, ipamProblem, vlanLabelProblem } from './interfaces.rules.js';

export type CreateInput = Static<typeof ComputeInterfaceCreateBody>;
type UpdateInput = Static<typeof ComputeInterfaceUpdateBody>;
type SettingsInput = Static<typeof InterfaceSettingsBody>;
type UpgradeInput = Static<typeof UpgradeInterfacesBody>;

/** A stored interface. */
export type ComputeInterfaceRow = Selectable<ComputeInterfacesTable>;

/** The most interfaces an instance has (as with a profile's eth0-eth2). */
export const MAX_INTERFACES = 3;
const NOT_THIS_GENERATION =
  'This instance uses configuration profile interfaces (interface_generation legacy_config); its interfaces are in its configuration profiles.';

/** A locally administered MAC address derived from the interface id (stable, unique). */
export function macOf(id: number): string {
  const hex = id.toString(16).padStart(8, '0').slice(-8).toUpperCase();
  return `22:00:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}:${hex.slice(6, 8)}`;
}

/**
 * The MAC of the interface at `position` of an upgrade: the instance's own MAC (f2:3c:…, the one
 * its SLAAC address derives from, see eui64) for the first, the same with the first octet f6, fa
 * for the next (locally administered, never one of macOf's 22:00:…). The same in a dry run and in
 * the upgrade itself.
 */
export function upgradeMacOf(instanceId: number, position: number): string {
  const [g0, g1, g2, g3] = eui64(instanceId) as [number, number, number, number];
  const octets = [
    ((g0 >> 8) ^ 0x02 ^ (position << 2)) & 0xff,
    g0 & 0xff,
    g1 >> 8,
    g2 & 0xff,
    g3 >> 8,
    g3 & 0xff,
  ];
  return octets.map((o) => o.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

/** A VPC interface with an IPv6 address (a SLAAC or routed /64): it can carry IPv6. */
function vpcIpv6Of(r: { purpose: string; ipv6: string | null }): InterfaceIpv6 | null {
  if (r.purpose !== 'vpc') return null;
  const v = readInterfaceIpv6(r.ipv6);
  return v && v.slaac.length + v.ranges.length > 0 ? v : null;
}

/**
 * The public IPv4 addresses VPC interfaces map 1:1 (`any`: the instance's first, `owned[0]`):
 * each is that VPC interface's, not the public interface's.
 */
function nattedBy(
  rows: readonly { purpose: string; ipv4_nat_1_1: string | null }[],
  owned: readonly string[],
): Set<string> {
  return new Set(
    rows.flatMap((r) =>
      r.purpose !== 'vpc' || r.ipv4_nat_1_1 === null
        ? []
        : [r.ipv4_nat_1_1 === 'any' ? (owned[0] ?? '') : r.ipv4_nat_1_1],
    ),
  );
}

/** Can be the IPv6 default route: a public interface, or a VPC interface with IPv6. */
export const carriesIpv6 = (r: { purpose: string; ipv6: string | null }): boolean =>
  r.purpose === 'public' || vpcIpv6Of(r) !== null;

export async function interfacesOfInstance(
  db: Database,
  instanceId: number,
): Promise<ComputeInterfaceRow[]> {
  return (await db.db
    .selectFrom('compute_interfaces')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('id')
    .execute()) as ComputeInterfaceRow[];
}

/** The instance's public IPv4 addresses, in the order they were given. */
async function publicIpv4Of(db: Database, instanceId: number): Promise<string[]> {
  const rows = await db.db
    .selectFrom('ip_addresses')
    .select('address')
    .where('instance_id', '=', instanceId)
    .where('kind', '=', 'public')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.address);
}

/** What the public interface shows of the instance: its addresses, shares and IPv6. */
async function publicView(db: Database, inst: InstanceRow) {
  const [ips, shared, ranges, sharedRanges] = await Promise.all([
    publicIpv4Of(db, inst.id),
    db.db
      .selectFrom('ip_shares as s')
      .innerJoin('ip_addresses as ip', 'ip.id', 's.ip_id')
      .select(['ip.address', 'ip.instance_id'])
      .where('s.instance_id', '=', inst.id)
      .orderBy('ip.address_num')
      .execute(),
    db.db
      .selectFrom('ipv6_ranges')
      .select(['range', 'prefix', 'route_target'])
      .where('instance_id', '=', inst.id)
      .orderBy('id')
      .execute(),
    db.db
      .selectFrom('ip_shares as s')
      .innerJoin('ipv6_ranges as r', 'r.id', 's.range_id')
      .select(['r.range', 'r.prefix', 'r.route_target'])
      .where('s.instance_id', '=', inst.id)
      .orderBy('r.id')
      .execute(),
  ]);
  return {
    addresses: ips,
    shared: shared.flatMap((r) =>
      r.instance_id === null ? [] : [{ address: r.address, compute_id: r.instance_id }],
    ),
    ranges: ranges.map((r) => ({ range: `${r.range}/${r.prefix}`, route_target: r.route_target })),
    sharedRanges: sharedRanges.map((r) => ({
      range: `${r.range}/${r.prefix}`,
      route_target: r.route_target,
    })),
  };
}

/** The interfaces as answered, in id order; `all`: every interface of the instance (1:1 NATs). */
export async function toApiComputeInterfaces(
  db: Database,
  inst: InstanceRow,
  rows: readonly ComputeInterfaceRow[],
  all: readonly ComputeInterfaceRow[] = rows,
) {
  // The instance's public addresses: a public interface shows them, a 1:1 NAT `auto` maps one.
  const view = rows.length > 0 ? await publicView(db, inst) : undefined;
  const firstPublic = view?.addresses[0] ?? null;
  // An address a VPC interface maps 1:1 is that interface's: the public interface does not list it.
  const natted = nattedBy(all, view?.addresses ?? []);
  const pub = view && {
    ...view,
    addresses: view.addresses.filter((a) => !natted.has(a)),
  };
  const firstListed = pub?.addresses[0] ?? null;
  return rows.map((r) => {
    const primary = r.primary_ipv4 !== null && pub?.addresses.includes(r.primary_ipv4);
    const v6 = r.purpose === 'vpc' ? readInterfaceIpv6(r.ipv6) : null;
    return {
      id: r.id,
      mac_address: r.mac_address,
      created: r.created,
      updated: r.updated,
      version: r.version,
      // Both families on every interface, as the real service answers (a VLAN one: both false).
      default_route: { ipv4: toBool(r.default_ipv4), ipv6: toBool(r.default_ipv6) },
      public:
        r.purpose === 'public' && pub
          ? {
              ipv4: {
                addresses: pub.addresses.map((address) => ({
                  address,
                  primary: primary ? address === r.primary_ipv4 : address === firstListed,
                })),
                shared: pub.shared,
              },
              ipv6: {
                ranges: pub.ranges,
                shared: pub.sharedRanges,
                slaac: inst.ipv6 === null ? [] : [{ address: inst.ipv6, prefix: 64 }],
              },
            }
          : null,
      vpc:
        r.purpose === 'vpc'
          ? {
              vpc_id: r.vpc_id as number,
              subnet_id: r.subnet_id as number,
              ipv4: {
                addresses:
                  r.ipv4_vpc === null
                    ? []
                    : [
                        {
                          address: r.ipv4_vpc,
                          primary: true,
                          nat_1_1_address: r.ipv4_nat_1_1 === 'any' ? firstPublic : r.ipv4_nat_1_1,
                        },
                      ],
                ranges: parseJson<string[]>(r.ip_ranges, []).map((range) => ({ range })),
              },
              ipv6: apiInterfaceIpv6(v6, eui64(inst.id)),
            }
          : null,
      vlan:
        r.purpose === 'vlan'
          ? { vlan_label: r.vlan_label as string, ipam_address: r.ipam_address }
          : null,
    };
  });
}
export type ApiComputeInterface = Awaited<ReturnType<typeof toApiComputeInterfaces>>[number];

const AUTO = 'auto';
/** A new IPv6 range asked for by its prefix length alone (`/64`). */
const NEW_RANGE = /^\/(\d{1,3})$/;
const NO_IPV6_ROUTE =
  'Only a public interface or a VPC interface with IPv6 can be the IPv6 default route';

/**
 * Routed ranges given as a prefix length only (`/32`): the first aligned block of that size in
 * the subnet's usable addresses that no interface holds (nor the interface's own address, nor a
 * range the same request names).
 */
async function pickRanges(
  db: Database,
  fe: FieldErrors,
  field: string,
  wanted: readonly string[],
  subnet: SubnetInfo,
  target: VpcTarget,
  ownAddress: string | null,
): Promise<string[]> {
  const out: string[] = [];
  if (!wanted.some((w) => w.startsWith('/'))) return [...wanted];
  const taken = await takenIn(db, subnet.id, target);
  const { first, last } = usableBounds(subnet);
  // The interface's own address: given, or the one `auto` will take (the first free one).
  let own = ownAddress === null ? first : ipv4ToNum(ownAddress);
  if (ownAddress === null) while (own <= last && isTaken(taken, own)) own++;
  // The explicit ranges of the same request are busy too (an update re-sends the interface's own).
  const chosen: { start: number; end: number }[] = wanted.flatMap((w) => {
    const r = w.startsWith('/') ? undefined : parseRange(w);
    return r ? [{ start: r.start, end: r.end }] : [];
  });
  for (const [k, w] of wanted.entries()) {
    const m = /^\/(\d{1,2})$/.exec(w);
    if (!m) {
      out.push(w);
      continue;
    }
    const prefix = Number(m[1]);
    if (prefix < subnet.prefix || prefix > 32) {
      fe.add(
        `${field}.${k}.range`,
        `The range's prefix length must be between ${subnet.prefix} and 32`,
      );
      continue;
    }
    const size = 2 ** (32 - prefix);
    let start = Math.ceil(first / size) * size;
    let found: number | undefined;
    for (; start + size - 1 <= last; start += size) {
      const end = start + size - 1;
      const busy =
        (own >= start && own <= end) ||
        chosen.some((c) => c.start <= end && start <= c.end) ||
        taken.ranges.some((r) => r.start <= end && start <= r.end) ||
        [...taken.addresses].some((a) => a >= start && a <= end);
      if (!busy) {
        found = start;
        break;
      }
    }
    if (found === undefined)
      fe.add(`${field}.${k}.range`, 'The subnet has no free range of that size');
    else {
      chosen.push({ start: found, end: found + size - 1 });
      out.push(`${numToIpv4(found)}/${prefix}`);
    }
  }
  return out;
}

/** The instance's interfaces of the compute generation: list, add, view, update, delete, settings. */
export class ComputeInterfacesService {
  constructor(
    private readonly d: {
      db: Database;
      clock: Clock;
      events: EventWriter;
      ips: IpAllocator;
      firewalls: FirewallsService;
    },
  ) {}

  private now(): string {
    return isoSeconds(this.d.clock.nowMs());
  }

  /** The instance (404 unless visible; `read_write` for changes), of the compute generation. */
  private async instance(
    db: Database,
    p: Principal,
    computeId: number,
    level: 'read_only' | 'read_write',
  ): Promise<InstanceRow> {
    const inst = await loadInstance(db, p, computeId, level, level === 'read_write');
    if ((inst.interface_generation ?? 'legacy_config') !== 'compute')
      throw errors.reason(NOT_THIS_GENERATION);
    return inst;
  }

  private async event(
    db: Database,
    p: Principal,
    inst: InstanceRow,
    action: 'interface_create' | 'interface_update' | 'interface_delete',
  ): Promise<void> {
    await this.d.events.record(db, {
      accountId: inst.account_id,
      action,
      entity: entityRefs.compute(inst.id, inst.label),
      status: 'notification',
      username: p.username,
    });
  }

  async list(p: Principal, computeId: number): Promise<{ interfaces: ApiComputeInterface[] }> {
    const inst = await this.instance(this.d.db, p, computeId, 'read_only');
    const rows = await interfacesOfInstance(this.d.db, inst.id);
    return { interfaces: await toApiComputeInterfaces(this.d.db, inst, rows) };
  }

  async get(p: Principal, computeId: number, interfaceId: number): Promise<ApiComputeInterface> {
    const inst = await this.instance(this.d.db, p, computeId, 'read_only');
    const rows = await interfacesOfInstance(this.d.db, inst.id);
    const row = rows.find((r) => r.id === interfaceId);
    if (!row) throw errors.notFound();
    return (await toApiComputeInterfaces(this.d.db, inst, [row], rows))[0] as ApiComputeInterface;
  }

  async create(p: Principal, computeId: number, b: CreateInput): Promise<ApiComputeInterface> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instance(tx, p, computeId, 'read_write');
      const [id] = await this.insertAll(tx, inst, [b], (f) => f);
      await this.event(tx, p, inst, 'interface_create');
      return this.get_(tx, inst, id as number);
    });
  }

  private async get_(db: Database, inst: InstanceRow, id: number): Promise<ApiComputeInterface> {
    const rows = await interfacesOfInstance(db, inst.id);
    const row = rows.find((r) => r.id === id);
    if (!row) throw errors.notFound();
    return (await toApiComputeInterfaces(db, inst, [row], rows))[0] as ApiComputeInterface;
  }

  /**
   * Checks and stores new interfaces of an instance (its create, or one added later), in the
   * caller's transaction. `at` names a field of the list (`interfaces.0.vpc.subnet_id`) or of
   * the body. Returns the new ids in order.
   */
  async insertAll(
    tx: Database,
    inst: InstanceRow,
    list: readonly CreateInput[],
    at: (field: string, n: number) => string,
  ): Promise<number[]> {
    const fe = new FieldErrors();
    const existing = await interfacesOfInstance(tx, inst.id);
    if (existing.length + list.length > MAX_INTERFACES)
      throw errors.invalidField(
        'interfaces',
        `An instance has at most ${MAX_INTERFACES} interfaces`,
      );
    const purposes = list.map((b, n) => {
      const given = (['public', 'vpc', 'vlan'] as const).filter((k) => b[k] != null);
      if (given.length !== 1) {
        fe.add(at('public', n), 'Exactly one of public, vpc or vlan must be given');
        return undefined;
      }
      return given[0];
    });
    for (const [n, x] of purposes.entries()) checkVlanRegion(fe, at('vlan', n), x, inst.region);
    const publics =
      existing.filter((r) => r.purpose === 'public').length +
      purposes.filter((x) => x === 'public').length;
    if (publics > 1) {
      const n = purposes.lastIndexOf('public');
      fe.add(at('public', n), 'An instance has at most one public interface');
    }
    // One default route per IP family among the new ones (an old holder gives it up).
    for (const family of ['ipv4', 'ipv6'] as const) {
      const holders = list.flatMap((b, n) => (b.default_route?.[family] === true ? [n] : []));
      if (holders.length > 1)
        fe.add(
          at(`default_route.${family}`, holders[1] as number),
          `Only one interface can be the ${family === 'ipv4' ? 'IPv4' : 'IPv6'} default route`,
        );
    }
    const subnets = await loadSubnets(
      tx,
      inst.account_id,
      list.flatMap((b) => (b.vpc ? [b.vpc.subnet_id] : [])),
      true,
    );
    const firewalls = new Map<number, boolean>();
    for (const [n, b] of list.entries()) {
      const purpose = purposes[n];
      if (purpose === 'vlan' && (b.default_route?.ipv4 === true || b.default_route?.ipv6 === true))
        fe.add(at('default_route', n), 'A VLAN interface cannot be a default route');
      if (b.firewall_id != null) {
        if (purpose === 'vlan')
          fe.add(at('firewall_id', n), 'A VLAN interface cannot have a firewall');
        else if (!firewalls.has(b.firewall_id)) {
          const fw = await tx.db
            .selectFrom('firewalls')
            .select('id')
            .where('account_id', '=', inst.account_id)
            .where('id', '=', b.firewall_id)
            .executeTakeFirst();
          firewalls.set(b.firewall_id, fw !== undefined);
        }
        if (purpose !== 'vlan' && firewalls.get(b.firewall_id) === false)
          fe.add(at('firewall_id', n), 'Firewall not found');
      }
      if (purpose === 'vlan' && b.vlan) {
        const lp = vlanLabelProblem(b.vlan.vlan_label);
        if (lp) fe.add(at('vlan.vlan_label', n), lp);
        const ipam = b.vlan.ipam_address ?? null;
        const ip = ipam === null || ipam === '' ? null : ipam;
        const ipp = ip === null ? undefined : ipamProblem(ip);
        if (ipp) fe.add(at('vlan.ipam_address', n), ipp);
        const others = [
          ...existing.filter((r) => r.purpose === 'vlan'),
          ...list
            .slice(0, n)
            .flatMap((o) =>
              o.vlan
                ? [{ vlan_label: o.vlan.vlan_label, ipam_address: o.vlan.ipam_address ?? null }]
                : [],
            ),
        ];
        if (others.some((o) => o.vlan_label === b.vlan?.vlan_label))
          fe.add(at('vlan.vlan_label', n), 'The instance already has an interface on this VLAN');
        if (ip !== null && others.some((o) => o.ipam_address === ip))
          fe.add(
            at('vlan.ipam_address', n),
            'ipam_address must be unique among the instance\u2019s interfaces',
          );
      }
      if (purpose === 'vpc' && b.vpc && !subnets.has(b.vpc.subnet_id))
        fe.add(at('vpc.subnet_id', n), 'Subnet not found');
      if (purpose === 'public' && b.public?.ipv6?.ranges)
        await this.checkOwnRanges(
          tx,
          fe,
          inst,
          b.public.ipv6.ranges,
          (k) => at(`public.ipv6.ranges.${k}.range`, n),
          at('public.ipv6.ranges', n),
        );
    }
    fe.throwIfAny();

    const now = this.now();
    const ids: number[] = [];
    for (const [n, b] of list.entries()) {
      const purpose = purposes[n] as 'public' | 'vpc' | 'vlan';
      const values = {
        account_id: inst.account_id,
        instance_id: inst.id,
        purpose,
        mac_address: '',
        version: 1,
        default_ipv4: b.default_route?.ipv4 === true ? 1 : 0,
        default_ipv6: b.default_route?.ipv6 === true ? 1 : 0,
        primary_ipv4: null as string | null,
        vpc_id: null as number | null,
        subnet_id: null as number | null,
        ipv4_vpc: null as string | null,
        ipv4_nat_1_1: null as string | null,
        ip_ranges: null as string | null,
        ipv6: null as string | null,
        vlan_label: null as string | null,
        ipam_address: null as string | null,
        created: now,
        updated: now,
      };
      if (purpose === 'public') {
        values.primary_ipv4 = await this.publicAddresses(tx, inst, b.public ?? {}, null, (f) =>
          at(`public.ipv4.addresses.${f}`, n),
        );
        const ranges = b.public?.ipv6?.ranges;
        if (ranges)
          await this.applyRanges(
            tx,
            inst,
            ranges,
            (k) => at(`public.ipv6.ranges.${k}.range`, n),
            at('public.ipv6.ranges', n),
          );
      } else if (purpose === 'vpc' && b.vpc) {
        const vfe = new FieldErrors();
        const done = await this.vpcValues(
          tx,
          vfe,
          inst,
          b.vpc.subnet_id,
          b.vpc.ipv4,
          b.vpc.ipv6,
          subnets,
          undefined,
          (f) => at(`vpc.${f}`, n),
        );
        if (b.default_route?.ipv6 === true && !carriesIpv6({ purpose, ipv6: done.ipv6 ?? null }))
          vfe.add(at('default_route.ipv6', n), NO_IPV6_ROUTE);
        vfe.throwIfAny();
        Object.assign(values, done);
      } else if (purpose === 'vlan' && b.vlan) {
        values.vlan_label = b.vlan.vlan_label;
        values.ipam_address = b.vlan.ipam_address ? b.vlan.ipam_address : null;
        // The VLAN outlives this interface until it is deleted, as with profile interfaces.
        await rememberVlans(tx, inst.account_id, inst.region, [b.vlan.vlan_label]);
      }
      for (const family of ['ipv4', 'ipv6'] as const) {
        if (b.default_route?.[family] === true) {
          const col = family === 'ipv4' ? 'default_ipv4' : 'default_ipv6';
          await tx.db
            .updateTable('compute_interfaces')
            .set({ [col]: 0 })
            .where('instance_id', '=', inst.id)
            .execute();
        }
      }
      const { id } = await tx.db
        .insertInto('compute_interfaces')
        .values(values)
        .returning('id')
        .executeTakeFirstOrThrow();
      await tx.db
        .updateTable('compute_interfaces')
        .set({ mac_address: macOf(id) })
        .where('id', '=', id)
        .execute();
      // No `firewall_id` at all: the account's default firewall for the interface's kind (the
      // firewall settings); an explicit null: none.
      const firewallId =
        purpose === 'vlan'
          ? null
          : b.firewall_id !== undefined
            ? b.firewall_id
            : await this.d.firewalls.defaultFirewallId(
                tx,
                inst.account_id,
                purpose === 'public' ? 'public_interface' : 'vpc_interface',
              );
      if (firewallId != null) {
        await tx.db
          .insertInto('firewall_devices')
          .values({
            firewall_id: firewallId,
            account_id: inst.account_id,
            entity_type: 'compute_interface',
            entity_id: id,
            created: now,
            updated: now,
          })
          .execute();
      }
      ids.push(id);
    }
    // A family without a default route gets one: the first new interface that can carry it
    // and was not told otherwise (the instance keeps a way out).
    const all = await interfacesOfInstance(tx, inst.id);
    for (const family of ['ipv4', 'ipv6'] as const) {
      const col = family === 'ipv4' ? 'default_ipv4' : 'default_ipv6';
      if (all.some((r) => r[col] === 1)) continue;
      const pick = ids.find((id, n) => {
        const row = all.find((r) => r.id === id);
        const eligible =
          row !== undefined && (family === 'ipv4' ? row.purpose !== 'vlan' : carriesIpv6(row));
        return eligible && list[n]?.default_route?.[family] !== false;
      });
      if (pick !== undefined)
        await tx.db
          .updateTable('compute_interfaces')
          .set({ [col]: 1 })
          .where('id', '=', pick)
          .execute();
    }
    return ids;
  }

  /**
   * A public interface's `ipv6.ranges`: each a range routed to this instance or a prefix length
   * (`/64`, `/56`) for a new one; at most one (an instance has at most one IPv6 range).
   */
  private async checkOwnRanges(
    db: Database,
    fe: FieldErrors,
    inst: InstanceRow,
    ranges: readonly { range: string }[],
    at: (k: number) => string,
    list: string,
  ): Promise<void> {
    const own = await db.db
      .selectFrom('ipv6_ranges')
      .select(['range', 'prefix'])
      .where('instance_id', '=', inst.id)
      .execute();
    const mine = new Set(own.map((r) => `${r.range}/${r.prefix}`));
    if (ranges.length > 1) fe.add(list, 'An instance can have at most one IPv6 range');
    for (const [k, r] of ranges.entries()) {
      const m = NEW_RANGE.exec(r.range);
      if (m ? m[1] !== '56' && m[1] !== '64' : !mine.has(r.range))
        fe.add(
          at(k),
          'Must be an IPv6 range routed to this instance, or /64 or /56 for a new range',
        );
    }
  }

  /**
   * Makes the instance's routed IPv6 ranges the checked list: a range it does not name is
   * released (never a shared one), a prefix length allocates a new range routed to the instance.
   */
  private async applyRanges(
    tx: Database,
    inst: InstanceRow,
    ranges: readonly { range: string }[],
    at: (k: number) => string,
    list: string,
  ): Promise<void> {
    const own = await tx.db
      .selectFrom('ipv6_ranges')
      .select(['id', 'range', 'prefix'])
      .where('instance_id', '=', inst.id)
      .execute();
    const named = new Set(ranges.map((r) => r.range));
    for (const r of own) {
      if (named.has(`${r.range}/${r.prefix}`)) continue;
      if ((await sharesOf(tx, { rangeId: r.id })).length > 0)
        throw errors.invalidField(list, 'A shared IPv6 range cannot be removed from the instance');
      await tx.db.deleteFrom('ipv6_ranges').where('id', '=', r.id).execute();
    }
    for (const [k, r] of ranges.entries()) {
      const m = NEW_RANGE.exec(r.range);
      if (m) await allocateRange(tx, this.d, inst, Number(m[1]), at(k));
    }
  }

  /**
   * A public interface's IPv4 addresses: named ones must be the instance's own public addresses;
   * `auto` takes one of its addresses that the list does not name, else a new one. Omitted:
   * the instance's addresses (a new one when it has none). Returns the primary address.
   */
  private async publicAddresses(
    tx: Database,
    inst: InstanceRow,
    pub: NonNullable<CreateInput['public']>,
    current: string | null,
    at: (field: string) => string,
  ): Promise<string | null> {
    const owned = await publicIpv4Of(tx, inst.id);
    const list = pub.ipv4?.addresses;
    const fe = new FieldErrors();
    // Addresses VPC interfaces map 1:1 are theirs: never the public interface's.
    const natted = nattedBy(await interfacesOfInstance(tx, inst.id), owned);
    if (list === undefined || list === null) {
      if (owned.every((a) => natted.has(a))) owned.push(await this.newPublic(tx, inst));
      return current !== null && owned.includes(current) ? current : null;
    }
    if (list.filter((a) => a.primary === true).length > 1)
      fe.add(at('primary'), 'Only one address can be primary');
    const named = new Set(
      list.flatMap((a) => (a.address && a.address !== AUTO ? [a.address] : [])),
    );
    for (const [k, a] of list.entries()) {
      const addr = a.address ?? AUTO;
      if (addr !== AUTO && (!isIpv4(addr) || !owned.includes(addr)))
        fe.add(at(`${k}.address`), 'Must be "auto" or a public IPv4 address of this instance');
    }
    fe.throwIfAny();
    let primary: string | null = current;
    const used = new Set([...named, ...natted]);
    for (const a of list) {
      let addr = a.address ?? AUTO;
      if (addr === AUTO) {
        const free = owned.find((o) => !used.has(o));
        addr = free ?? (await this.newPublic(tx, inst));
        used.add(addr);
      }
      if (a.primary === true) primary = addr;
    }
    return primary;
  }

  /**
   * `nat_1_1_address: auto`: a public IPv4 of the instance of its own, as the real service gives
   * one (a create with a public `auto` address and a VPC `auto` NAT gets two addresses, recorded).
   * The current one on an update; else an address no other interface holds (not NAT'd by another
   * VPC interface, not the public interface's primary or, without one, its first address); else
   * a new one, billed as an extra address.
   */
  private async natAuto(
    tx: Database,
    inst: InstanceRow,
    selfId: number | undefined,
    current: string | null,
  ): Promise<string> {
    if (current !== null) return current;
    const rows = (await interfacesOfInstance(tx, inst.id)).filter((r) => r.id !== selfId);
    const owned = await publicIpv4Of(tx, inst.id);
    const natted = nattedBy(rows, owned);
    const free = owned.filter((a) => !natted.has(a));
    const pub = rows.find((r) => r.purpose === 'public');
    const kept = pub ? (pub.primary_ipv4 ?? free[0]) : undefined;
    return free.find((a) => a !== kept) ?? (await this.newPublic(tx, inst));
  }

  private async newPublic(tx: Database, inst: InstanceRow): Promise<string> {
    const ip = await this.d.ips.next(tx, inst.region, 'public');
    await insertIp(
      tx,
      { accountId: inst.account_id, instanceId: inst.id, region: inst.region, kind: 'public', ip },
      this.now(),
    );
    return ip.address;
  }

  /** A VPC interface's subnet, address, 1:1 NAT and ranges, checked against the subnet. */
  private async vpcValues(
    tx: Database,
    fe: FieldErrors,
    inst: InstanceRow,
    subnetId: number,
    ipv4: NonNullable<NonNullable<CreateInput['vpc']>['ipv4']> | null | undefined,
    ipv6: InterfaceIpv6Request | null | undefined,
    subnets: ReadonlyMap<number, SubnetInfo>,
    interfaceId: number | undefined,
    at: (field: string) => string,
    previous?: {
      ipv4_vpc: string | null;
      ipv4_nat_1_1: string | null;
      ip_ranges: string[];
      ipv6: InterfaceIpv6 | null;
    },
  ): Promise<{
    vpc_id?: number | null;
    subnet_id?: number;
    ipv4_vpc?: string | null;
    ipv4_nat_1_1?: string | null;
    ip_ranges?: string | null;
    ipv6?: string | null;
  }> {
    const addresses = ipv4?.addresses;
    if (addresses && addresses.length > 1)
      fe.add(at('ipv4.addresses'), 'A VPC interface has one IPv4 address; route more with ranges');
    const first = addresses?.[0];
    const given = first?.address ?? null;
    const address =
      addresses === undefined || addresses === null
        ? (previous?.ipv4_vpc ?? null)
        : given === null || given === AUTO
          ? null
          : given;
    if (address !== null && !isIpv4(address))
      fe.add(at('ipv4.addresses.0.address'), 'Must be "auto" or an IPv4 address of the subnet');
    const natIn =
      addresses === undefined || addresses === null
        ? (previous?.ipv4_nat_1_1 ?? null)
        : (first?.nat_1_1_address ?? null);
    const nat =
      natIn === AUTO
        ? await this.natAuto(tx, inst, interfaceId, previous?.ipv4_nat_1_1 ?? null)
        : natIn === ''
          ? null
          : natIn;
    const target: VpcTarget = {
      accountId: inst.account_id,
      instanceId: inst.id,
      region: inst.region,
      creating: false,
      ...(interfaceId !== undefined ? { computeInterfaceId: interfaceId } : {}),
      // No profile interface is excluded: an instance of this generation has none.
      configId: -1,
      interfaceId: -1,
    };
    const subnet = subnets.get(subnetId);
    const wanted =
      ipv4?.ranges === undefined || ipv4.ranges === null
        ? (previous?.ip_ranges ?? [])
        : ipv4.ranges.map((r) => r.range);
    const ranges = subnet
      ? await pickRanges(tx, fe, at('ipv4.ranges'), wanted, subnet, target, address)
      : wanted;
    const norm: NormalizedInterface = {
      purpose: 'vpc',
      label: null,
      ipam_address: null,
      primary: false,
      subnet_id: subnetId,
      ipv4_vpc: address,
      ipv4_nat_1_1: nat,
      ip_ranges: ranges,
      // IPv6 (a dual-stack subnet): `ipv6` replaces it when given, else it is kept (or, new, one
      // SLAAC /64): the profile interfaces' rules (completeVpcInterfaces).
      ipv6: previous?.ipv6 ?? null,
      ipv6_request: ipv6 ?? undefined,
    };
    if (fe.has(at('ipv4.addresses.0.address'))) return {};
    await completeVpcInterfaces(
      tx,
      fe,
      (_n, f) =>
        at(
          f === 'ipv4.vpc'
            ? 'ipv4.addresses.0.address'
            : f === 'ipv4.nat_1_1'
              ? 'ipv4.addresses.0.nat_1_1_address'
              : f.startsWith('ip_ranges.')
                ? `ipv4.ranges.${f.slice('ip_ranges.'.length)}.range`
                : f,
        ),
      [norm],
      subnets,
      target,
    );
    return {
      vpc_id: norm.vpc_id ?? subnet?.vpc_id ?? null,
      subnet_id: subnetId,
      ipv4_vpc: norm.ipv4_vpc,
      ipv4_nat_1_1: norm.ipv4_nat_1_1,
      ip_ranges:
        norm.ip_ranges === null || norm.ip_ranges.length === 0
          ? null
          : JSON.stringify(norm.ip_ranges),
      ipv6: storeInterfaceIpv6(norm.ipv6),
    };
  }

  /** Update: default routes, a public interface's addresses, a VPC interface's IPv4; not VLAN. */
  async update(
    p: Principal,
    computeId: number,
    interfaceId: number,
    b: UpdateInput,
  ): Promise<ApiComputeInterface> {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instance(tx, p, computeId, 'read_write');
      const rows = await interfacesOfInstance(tx, inst.id);
      const row = rows.find((r) => r.id === interfaceId);
      if (!row) throw errors.notFound();
      const fe = new FieldErrors();
      if (row.purpose === 'vlan' && (b.public != null || b.vpc != null || b.default_route != null))
        throw errors.reason('A VLAN interface cannot be updated; delete it and add a new one.');
      if (b.public != null && row.purpose !== 'public')
        fe.add('public', 'This interface is not a public interface');
      if (b.vpc != null && row.purpose !== 'vpc')
        fe.add('vpc', 'This interface is not a VPC interface');
      if (
        row.purpose === 'vpc' &&
        b.vpc?.subnet_id !== undefined &&
        b.vpc.subnet_id !== null &&
        b.vpc.subnet_id !== row.subnet_id
      )
        fe.add('vpc.subnet_id', 'The subnet of a VPC interface cannot be changed');
      if (row.purpose === 'public' && b.public?.ipv6?.ranges)
        await this.checkOwnRanges(
          tx,
          fe,
          inst,
          b.public.ipv6.ranges,
          (k) => `public.ipv6.ranges.${k}.range`,
          'public.ipv6.ranges',
        );
      fe.throwIfAny();
      const set: Record<string, unknown> = {};
      if (row.purpose === 'public' && b.public != null) {
        set.primary_ipv4 = await this.publicAddresses(
          tx,
          inst,
          b.public,
          row.primary_ipv4,
          (f) => `public.ipv4.addresses.${f}`,
        );
        const ranges = b.public.ipv6?.ranges;
        if (ranges)
          await this.applyRanges(
            tx,
            inst,
            ranges,
            (k) => `public.ipv6.ranges.${k}.range`,
            'public.ipv6.ranges',
          );
      }
      if (row.purpose === 'vpc' && b.vpc != null && (b.vpc.ipv4 != null || b.vpc.ipv6 != null)) {
        const subnets = await loadSubnets(tx, inst.account_id, [row.subnet_id as number], true);
        const vfe = new FieldErrors();
        const done = await this.vpcValues(
          tx,
          vfe,
          inst,
          row.subnet_id as number,
          b.vpc.ipv4,
          b.vpc.ipv6,
          subnets,
          row.id,
          (f) => `vpc.${f}`,
          {
            ipv4_vpc: row.ipv4_vpc,
            ipv4_nat_1_1: row.ipv4_nat_1_1,
            ip_ranges: parseJson<string[]>(row.ip_ranges, []),
            ipv6: readInterfaceIpv6(row.ipv6),
          },
        );
        vfe.throwIfAny();
        Object.assign(set, done);
      }
      // IPv6 routes need an interface that carries IPv6 (as changed by this update).
      const ipv6After = 'ipv6' in set ? (set.ipv6 as string | null) : row.ipv6;
      const carries = carriesIpv6({ purpose: row.purpose, ipv6: ipv6After });
      if (b.default_route?.ipv6 === true && !carries)
        throw errors.invalidField('default_route.ipv6', NO_IPV6_ROUTE);
      if (!carries && row.default_ipv6 === 1) set.default_ipv6 = 0;
      for (const family of ['ipv4', 'ipv6'] as const) {
        const v = b.default_route?.[family];
        if (v === undefined || v === null) continue;
        const col = family === 'ipv4' ? 'default_ipv4' : 'default_ipv6';
        if (v)
          await tx.db
            .updateTable('compute_interfaces')
            .set({ [col]: 0 })
            .where('instance_id', '=', inst.id)
            .execute();
        set[col] = v ? 1 : 0;
      }
      await tx.db
        .updateTable('compute_interfaces')
        .set({ ...set, version: row.version + 1, updated: this.now() })
        .where('id', '=', row.id)
        .execute();
      await this.event(tx, p, inst, 'interface_update');
      return this.get_(tx, inst, row.id);
    });
  }

  /** Delete: the interface, its firewall device; its addresses stay with the instance. */
  async delete(p: Principal, computeId: number, interfaceId: number): Promise<void> {
    await this.d.db.transaction(async (tx) => {
      const inst = await this.instance(tx, p, computeId, 'read_write');
      const rows = await interfacesOfInstance(tx, inst.id);
      const row = rows.find((r) => r.id === interfaceId);
      if (!row) throw errors.notFound();
      await refuseIfSubresourcesLocked(tx, 'compute', inst.id, 'the interfaces');
      await dropInterfaces(tx, [row.id]);
      await this.event(tx, p, inst, 'interface_delete');
    });
  }

  /** `/interfaces/settings`: the network helper and which interfaces are the default routes. */
  async settings(p: Principal, computeId: number) {
    const inst = await this.instance(this.d.db, p, computeId, 'read_only');
    return settingsOf(inst, await interfacesOfInstance(this.d.db, inst.id));
  }

  async updateSettings(p: Principal, computeId: number, b: SettingsInput) {
    return this.d.db.transaction(async (tx) => {
      const inst = await this.instance(tx, p, computeId, 'read_write');
      const rows = await interfacesOfInstance(tx, inst.id);
      const before = settingsOf(inst, rows);
      const fe = new FieldErrors();
      const v4 = b.default_route?.ipv4_interface_id;
      const v6 = b.default_route?.ipv6_interface_id;
      if (v4 != null && !before.default_route.ipv4_eligible_interface_ids.includes(v4))
        fe.add(
          'default_route.ipv4_interface_id',
          'Must be a public or VPC interface of this instance',
        );
      if (v6 != null && !before.default_route.ipv6_eligible_interface_ids.includes(v6))
        fe.add(
          'default_route.ipv6_interface_id',
          'Must be a public interface, or a VPC interface with IPv6, of this instance',
        );
      fe.throwIfAny();
      const now = this.now();
      for (const [id, col] of [
        [v4, 'default_ipv4'],
        [v6, 'default_ipv6'],
      ] as const) {
        if (id == null) continue;
        await tx.db
          .updateTable('compute_interfaces')
          .set({ [col]: 0 })
          .where('instance_id', '=', inst.id)
          .execute();
        await tx.db
          .updateTable('compute_interfaces')
          .set({ [col]: 1, updated: now })
          .where('id', '=', id)
          .execute();
      }
      if (b.network_helper != null)
        await tx.db
          .updateTable('instances')
          .set({ interfaces_network_helper: b.network_helper ? 1 : 0, updated: now })
          .where('id', '=', inst.id)
          .execute();
      await this.event(tx, p, inst, 'interface_update');
      const fresh = await loadInstance(tx, p, inst.id, 'read_only');
      return settingsOf(fresh, await interfacesOfInstance(tx, inst.id));
    });
  }

  /** The firewalls of an interface (its firewall devices of type `compute_interface`). */
  async firewalls(
    p: Principal,
    computeId: number,
    interfaceId: number,
    params: PageParams,
  ): Promise<Page<ApiFirewall>> {
    const inst = await this.instance(this.d.db, p, computeId, 'read_only');
    const rows = await interfacesOfInstance(this.d.db, inst.id);
    if (!rows.some((r) => r.id === interfaceId)) throw errors.notFound();
    return this.d.firewalls.ofDevice(p, 'compute_interface', interfaceId, params);
  }

  /**
   * `POST …/upgrade-interfaces`: a legacy instance's profile interfaces become its own (one
   * profile: `config_id`, else the last booted one, else its only one). A profile without
   * interfaces gives one public interface (its implicit eth0). The primary (or first) public or
   * VPC interface takes the IPv4 default route, the public one the IPv6 one; the instance's
   * firewalls move to its public and VPC interfaces; every profile loses its interfaces.
   * `dry_run`: the interfaces it would make (the ids and MACs they would get), nothing changed.
   */
  async upgrade(p: Principal, computeId: number, b: UpgradeInput) {
    const dryRun = b.dry_run === true;
    const run = async (tx: Database) => {
      const inst = await loadInstance(tx, p, computeId, 'read_write', !dryRun);
      if ((inst.interface_generation ?? 'legacy_config') === 'compute')
        throw errors.reason('This instance already uses interfaces of the compute generation.');
      const configs = await tx.db
        .selectFrom('configs')
        .select('id')
        .where('instance_id', '=', inst.id)
        .orderBy('id')
        .execute();
      let configId = b.config_id ?? null;
      if (configId !== null) {
        if (!configs.some((c) => c.id === configId))
          throw errors.invalidField('config_id', 'Config not found');
      } else if (inst.last_booted_config_id !== null) configId = inst.last_booted_config_id;
      else if (configs.length === 1) configId = configs[0]?.id ?? null;
      else
        throw errors.invalidField(
          'config_id',
          configs.length === 0
            ? 'The instance has no configuration profile to upgrade'
            : 'The instance has several configuration profiles: name one',
        );
      const legacy = await tx.db
        .selectFrom('config_interfaces')
        .selectAll()
        .where('config_id', '=', configId as number)
        .orderBy('position')
        .execute();
      const sources =
        legacy.length === 0
          ? [{ purpose: 'public' as const, is_primary: 1 } as Partial<(typeof legacy)[number]>]
          : legacy;
      const routed = sources.filter((s) => s.purpose !== 'vlan');
      const v4 = routed.find((s) => s.is_primary === 1) ?? routed[0];
      // The IPv6 route: the IPv4 one's interface when it carries IPv6, else the first that does.
      const v6Able = (s: (typeof sources)[number]) =>
        carriesIpv6({ purpose: s.purpose as string, ipv6: s.ipv6 ?? null });
      const v6 = v4 && v6Able(v4) ? v4 : sources.find(v6Able);
      const now = this.now();
      // The ids the interfaces get (a dry run shows the ones they would get, as of now).
      const ids = await nextInterfaceIds(tx, sources.length);
      const rows: ComputeInterfaceRow[] = sources.map((s, k) => ({
        id: ids[k] as number,
        account_id: inst.account_id,
        instance_id: inst.id,
        purpose: s.purpose as 'public' | 'vpc' | 'vlan',
        mac_address: upgradeMacOf(inst.id, k),
        version: 1,
        default_ipv4: s === v4 ? 1 : 0,
        default_ipv6: s === v6 ? 1 : 0,
        primary_ipv4: null,
        vpc_id: s.vpc_id ?? null,
        subnet_id: s.subnet_id ?? null,
        ipv4_vpc: s.ipv4_vpc ?? null,
        ipv4_nat_1_1: s.ipv4_nat_1_1 ?? null,
        ipv6: s.ipv6 ?? null,
        ip_ranges: s.ip_ranges ?? null,
        vlan_label: s.purpose === 'vlan' ? (s.label ?? null) : null,
        ipam_address: s.purpose === 'vlan' ? (s.ipam_address ?? null) : null,
        created: now,
        updated: now,
      }));
      if (rows.some((r) => r.purpose === 'vlan' && r.vlan_label === null))
        throw errors.reason('A VLAN interface without a label cannot be upgraded.');
      if (dryRun) {
        return {
          config_id: configId as number,
          dry_run: true,
          interfaces: await toApiComputeInterfaces(tx, inst, rows),
        };
      }
      const firewalls = await tx.db
        .selectFrom('firewall_devices')
        .select('firewall_id')
        .where('entity_type', '=', 'compute')
        .where('entity_id', '=', inst.id)
        .execute();
      for (const r of rows) {
        const { id: _drop, ...values } = r;
        const { id } = await tx.db
          .insertInto('compute_interfaces')
          .values(values)
          .returning('id')
          .executeTakeFirstOrThrow();
        r.id = id;
        if (r.purpose !== 'vlan') {
          for (const f of firewalls) {
            await tx.db
              .insertInto('firewall_devices')
              .values({
                firewall_id: f.firewall_id,
                account_id: inst.account_id,
                entity_type: 'compute_interface',
                entity_id: id,
                created: now,
                updated: now,
              })
              .execute();
          }
        }
        await this.event(tx, p, inst, 'interface_create');
      }
      await tx.db
        .deleteFrom('firewall_devices')
        .where('entity_type', '=', 'compute')
        .where('entity_id', '=', inst.id)
        .execute();
      await tx.db.deleteFrom('config_interfaces').where('instance_id', '=', inst.id).execute();
      await tx.db
        .updateTable('instances')
        .set({ interface_generation: 'compute', updated: now })
        .where('id', '=', inst.id)
        .execute();
      const fresh = await loadInstance(tx, p, inst.id, 'read_only');
      return {
        config_id: configId as number,
        dry_run: false,
        interfaces: await toApiComputeInterfaces(tx, fresh, rows),
      };
    };
    return dryRun ? run(this.d.db) : this.d.db.transaction(run);
  }
}

/**
 * The next `n` ids of compute_interfaces, read without taking them: SQLite's AUTOINCREMENT
 * counter, PostgreSQL's sequence. A dry run's preview; the upgrade itself uses what it is given.
 */
async function nextInterfaceIds(db: Database, n: number): Promise<number[]> {
  let last = 0;
  if (db.dialect === 'postgres') {
    const r = await sql<{ last_value: string | number; is_called: boolean }>`
      select last_value, is_called from compute_interfaces_id_seq`.execute(db.db);
    const row = r.rows[0];
    if (row) last = Number(row.last_value) - (row.is_called ? 0 : 1);
  } else {
    const r = await sql<{ seq: number }>`
      select seq from sqlite_sequence where name = 'compute_interfaces'`.execute(db.db);
    last = Number(r.rows[0]?.seq ?? 0);
  }
  return Array.from({ length: n }, (_v, k) => last + 1 + k);
}

export function settingsOf(inst: InstanceRow, rows: readonly ComputeInterfaceRow[]) {
  return {
    network_helper: toBool(inst.interfaces_network_helper ?? 0),
    default_route: {
      ipv4_interface_id: rows.find((r) => toBool(r.default_ipv4))?.id ?? null,
      ipv4_eligible_interface_ids: rows.filter((r) => r.purpose !== 'vlan').map((r) => r.id),
      ipv6_interface_id: rows.find((r) => toBool(r.default_ipv6))?.id ?? null,
      ipv6_eligible_interface_ids: rows.filter(carriesIpv6).map((r) => r.id),
    },
  };
}

/** Removes interfaces and their firewall devices (interface delete, instance delete). */
export async function dropInterfaces(db: Database, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.db
    .deleteFrom('firewall_devices')
    .where('entity_type', '=', 'compute_interface')
    .where('entity_id', 'in', [...ids])
    .execute();
  await db.db
    .deleteFrom('compute_interfaces')
    .where('id', 'in', [...ids])
    .execute();
}
