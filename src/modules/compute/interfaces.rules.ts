import type { Static } from '@sinclair/typebox';
import type { FieldErrors } from '../../errors/errors.js';
import { isIpv4 } from '../../lib/ip.js';
import { catalogueData } from '../catalogue/catalogue.data.js';
import type { InterfaceIpv6, InterfaceIpv6Request } from '../vpcs/vpc-ipv6.rules.js';
import type { InterfaceRequestSchema } from './compute.schemas.js';

export type InterfaceInput = Static<typeof InterfaceRequestSchema>;

/** An interface ready to store. */
export interface NormalizedInterface {
  purpose: 'public' | 'vlan' | 'vpc';
  label: string | null;
  ipam_address: string | null;
  primary: boolean;
  subnet_id: number | null;
  /** The subnet's VPC, filled in from the subnet's row (src/modules/vpcs/vpc-interfaces.ts). */
  vpc_id?: number | null;
  ipv4_vpc: string | null;
  ipv4_nat_1_1: string | null;
  ip_ranges: string[] | null;
  /** A VPC interface's IPv6 (dual-stack subnets), completed by src/modules/vpcs/vpc-interfaces.ts. */
  ipv6?: InterfaceIpv6 | null;
  /** What the request asked for it (undefined: not named; the current one or the default). */
  ipv6_request?: InterfaceIpv6Request | null;
}

const blank = (v: string | null | undefined) => v === undefined || v === null || v === '';

/** `ip/netmask` with an IPv4 address and a prefix length. */
export function ipamProblem(v: string): string | undefined {
  const [ip, prefix, extra] = v.split('/');
  if (
    extra !== undefined ||
    !ip ||
    !isIpv4(ip) ||
    prefix === undefined ||
    !/^\d{1,2}$/.test(prefix) ||
    Number(prefix) > 32
  ) {
    return 'ipam_address must be an IPv4 address with a prefix length, such as 10.0.0.1/24';
  }
  return undefined;
}

export function vlanLabelProblem(label: string): string | undefined {
  if (label.length < 1 || label.length > 64) return 'Length must be 1-64 characters';
  if (!/^[a-zA-Z0-9-]+$/.test(label))
    return 'VLAN label must contain only letters, numbers and dashes';
  if (label.includes('--')) return 'VLAN label must not contain two dashes in a row';
  return undefined;
}

/** The reason given when two vlan interfaces of an instance share an address. */
const NO_VLANS = 'VLANs are not available in this region';

/**
 * A VLAN interface needs its instance's region to have the `Vlans` capability (a distributed
 * site has none): refused on the field `at` otherwise.
 */
export function checkVlanRegion(
  fe: FieldErrors,
  at: string,
  purpose: string | undefined,
  region: string,
): void {
  if (purpose !== 'vlan') return;
  const r = catalogueData().regions.find((x) => x.id === region);
  if (r && !r.capabilities.includes('Vlans')) fe.add(at, NO_VLANS);
}

export const IPAM_NOT_UNIQUE = 'ipam_address must be unique among the instance\u2019s interfaces';
/** The reason given when a config would join one VLAN twice. */
export const VLAN_TWICE = 'The instance is already attached to this VLAN in this config';

/** Where a check reports: `base` '' gives bare field names (a single-interface body). */
const fieldAt = (base: string) => (f: string) => (base === '' ? f : `${base}.${f}`);

/**
 * Checks one interface with the purpose rules of the reference and returns it normalized.
 * `field` is its path ('' for a request body that is the interface itself).
 */
export function checkInterface(
  fe: FieldErrors,
  field: string,
  i: InterfaceInput,
  opts: { creating: boolean; subnetExists: (id: number) => boolean },
): NormalizedInterface {
  const at = fieldAt(field);
  if (i.purpose !== 'vpc') {
    if (i.ip_ranges !== undefined && i.ip_ranges !== null)
      fe.add(at('ip_ranges'), 'ip_ranges is only allowed for vpc interfaces');
    if (i.ipv4 && (!blank(i.ipv4.vpc) || !blank(i.ipv4.nat_1_1)))
      fe.add(at('ipv4'), 'ipv4 is only allowed for vpc interfaces');
    if (i.subnet_id !== undefined && i.subnet_id !== null)
      fe.add(at('subnet_id'), 'subnet_id is only allowed for vpc interfaces');
    if (i.ipv6 !== undefined && i.ipv6 !== null)
      fe.add(at('ipv6'), 'ipv6 is only allowed for vpc interfaces');
  }
  switch (i.purpose) {
    case 'public':
      if (!blank(i.label))
        fe.add(at('label'), 'label must be empty or null for a public interface');
      if (!blank(i.ipam_address))
        fe.add(at('ipam_address'), 'ipam_address must be empty or null for a public interface');
      return {
        purpose: 'public',
        label: null,
        ipam_address: null,
        primary: i.primary ?? false,
        subnet_id: null,
        ipv4_vpc: null,
        ipv4_nat_1_1: null,
        ip_ranges: null,
      };
    case 'vlan': {
      if (blank(i.label)) fe.add(at('label'), 'label is required for a vlan interface');
      else {
        const p = vlanLabelProblem(i.label as string);
        if (p) fe.add(at('label'), p);
      }
      if (i.primary) fe.add(at('primary'), 'A vlan interface cannot be primary');
      let ipam: string | null = null;
      if (!blank(i.ipam_address)) {
        ipam = i.ipam_address as string;
        const p = ipamProblem(ipam);
        if (p) fe.add(at('ipam_address'), p);
      }
      return {
        purpose: 'vlan',
        label: i.label ?? null,
        ipam_address: ipam,
        primary: false,
        subnet_id: null,
        ipv4_vpc: null,
        ipv4_nat_1_1: null,
        ip_ranges: null,
      };
    }
    default: {
      if (!blank(i.label)) fe.add(at('label'), 'label must be empty or null for a vpc interface');
      if (!blank(i.ipam_address))
        fe.add(at('ipam_address'), 'ipam_address must be empty or null for a vpc interface');
      if (i.subnet_id === undefined || i.subnet_id === null)
        fe.add(at('subnet_id'), 'subnet_id is required for a vpc interface');
      else if (!opts.subnetExists(i.subnet_id)) fe.add(at('subnet_id'), 'Subnet not found');
      const nat = blank(i.ipv4?.nat_1_1) ? null : (i.ipv4?.nat_1_1 as string);
      if (nat !== null && nat !== 'any' && opts.creating) {
        fe.add(
          at('ipv4.nat_1_1'),
          'A specific address cannot be set when creating an instance; use "any"',
        );
      } else if (nat !== null && nat !== 'any' && !isIpv4(nat))
        fe.add(at('ipv4.nat_1_1'), 'nat_1_1 must be "any" or an IPv4 address');
      const vpcIp = blank(i.ipv4?.vpc) ? null : (i.ipv4?.vpc as string);
      if (vpcIp !== null && !isIpv4(vpcIp))
        fe.add(at('ipv4.vpc'), 'ipv4.vpc must be an IPv4 address');
      return {
        purpose: 'vpc',
        label: null,
        ipam_address: null,
        primary: i.primary ?? false,
        subnet_id: i.subnet_id ?? null,
        ipv4_vpc: vpcIp,
        ipv4_nat_1_1: nat,
        ip_ranges: i.ip_ranges ?? null,
        ipv6_request: i.ipv6 ?? undefined,
      };
    }
  }
}

/**
 * Checks a list of interfaces with the purpose rules of the reference and returns them
 * normalized. `field` is the list's path (e.g. `interfaces`). VPC subnets are looked up by
 * `subnetExists` (none exist until VPCs arrive). Within the list: one public interface, one
 * primary, each VLAN once, each vlan address once.
 */
export function checkInterfaces(
  fe: FieldErrors,
  field: string,
  list: readonly InterfaceInput[],
  opts: { creating: boolean; subnetExists: (id: number) => boolean },
): NormalizedInterface[] {
  if (list.length > 3) fe.add(field, 'At most 3 interfaces are allowed');
  const out = list.map((i, n) => checkInterface(fe, `${field}.${n}`, i, opts));
  out.forEach((i, n) => {
    const earlier = out.slice(0, n);
    const at = fieldAt(`${field}.${n}`);
    if (i.purpose === 'public' && earlier.filter((e) => e.purpose === 'public').length === 1) {
      fe.add(at('purpose'), 'Only one public interface is allowed');
    }
    if (i.purpose !== 'vlan') return;
    if (i.label !== null && earlier.some((e) => e.purpose === 'vlan' && e.label === i.label))
      fe.add(at('label'), VLAN_TWICE);
    if (
      i.ipam_address !== null &&
      !fe.has(at('ipam_address')) &&
      earlier.some((e) => e.ipam_address === i.ipam_address)
    ) {
      fe.add(at('ipam_address'), IPAM_NOT_UNIQUE);
    }
  });
  if (out.filter((i) => i.primary).length > 1) fe.add(field, 'Only one interface can be primary');
  return out;
}

/**
 * An interface added to a config that already has `existing`: at most three, one public, each
 * VLAN once; its vlan address must not be used by another interface of the instance
 * (`instanceIpams`: the addresses of the instance's vlan interfaces, every config).
 */
export function checkAddition(
  fe: FieldErrors,
  added: NormalizedInterface,
  existing: readonly NormalizedInterface[],
  instanceIpams: ReadonlySet<string>,
): void {
  if (existing.length >= 3) fe.add(undefined, 'At most 3 interfaces are allowed');
  if (added.purpose === 'public' && existing.some((e) => e.purpose === 'public')) {
    fe.add('purpose', 'Only one public interface is allowed');
  }
  if (added.purpose !== 'vlan') return;
  if (added.label !== null && existing.some((e) => e.purpose === 'vlan' && e.label === added.label))
    fe.add('label', VLAN_TWICE);
  if (
    added.ipam_address !== null &&
    !fe.has('ipam_address') &&
    instanceIpams.has(added.ipam_address)
  ) {
    fe.add('ipam_address', IPAM_NOT_UNIQUE);
  }
}

/** Vlan addresses of a list that other interfaces of the instance already use. */
export function checkInstanceIpams(
  fe: FieldErrors,
  field: string,
  list: readonly NormalizedInterface[],
  instanceIpams: ReadonlySet<string>,
): void {
  list.forEach((i, n) => {
    const at = `${field}.${n}.ipam_address`;
    if (i.ipam_address !== null && !fe.has(at) && instanceIpams.has(i.ipam_address))
      fe.add(at, IPAM_NOT_UNIQUE);
  });
}
