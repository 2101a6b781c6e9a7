import type { FieldErrors } from '../../errors/errors.js';
import { ipv4ToNum, parseIpv6 } from '../../lib/ip.js';

/** Rules across inbound and outbound (spec: limits). */
export const MAX_RULES = 25;
/** Addresses and networks in one rule, IPv4 and IPv6 together. */
export const MAX_ADDRESSES = 255;
/** Pieces of a rule's `ports` (a port is one piece, a range two). */
export const MAX_PORT_PIECES = 15;

export type Policy = 'ACCEPT' | 'DROP';
export type Protocol = 'TCP' | 'UDP' | 'ICMP' | 'IPENCAP';

/** A rule as stored and answered: absent optional fields are left out. */
export interface Rule {
  protocol: Protocol;
  ports?: string;
  addresses: { ipv4?: string[]; ipv6?: string[] };
  action: Policy;
  label?: string;
  description?: string;
}

/** An entry of a firewall's rules that names one of the account's rule sets (its rules, in place). */
export interface RulesetRef {
  ruleset: number;
}
export type RuleEntry = Rule | RulesetRef;
export const isRef = (r: RuleEntry): r is RulesetRef => 'ruleset' in r;

/** A firewall's rules as stored and answered: rules and references to rule sets. */
export interface RuleSet {
  inbound: RuleEntry[];
  outbound: RuleEntry[];
}

/** A firewall's rules with every reference replaced by its rule set's rules (evaluation). */
export interface ExpandedRules {
  inbound: Rule[];
  outbound: Rule[];
}

/** A rule as a client sends it (the schema checked the types; the required fields are checked here). */
export interface RuleInput {
  protocol?: string;
  ports?: string | null;
  addresses?: { ipv4?: string[]; ipv6?: string[] };
  action?: string;
  label?: string;
  description?: string;
  ruleset?: number;
}

/**
 * Firewall label: 3..32 characters, alphanumerics, `-`, `_` and `.`, beginning and ending with an
 * alphanumeric, no `--`, `__` or `..`.
 */
export function firewallLabelProblem(label: string): string | undefined {
  if (label.length < 3 || label.length > 32) return 'Label must be 3 to 32 characters';
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/.test(label))
    return 'Label must begin and end with a letter or digit and contain only letters, digits, hyphens, underscores and periods';
  if (/--|__|\.\./.test(label))
    return 'Label must not contain two hyphens, underscores or periods in a row';
  return undefined;
}

/** Parses a `ports` string into inclusive ranges; a string is the problem. */
export function parsePorts(ports: string): [number, number][] | string {
  const pieces = ports.split(/, ?/);
  const out: [number, number][] = [];
  let count = 0;
  const port = (s: string): number | undefined => {
    if (!/^[1-9]\d{0,4}$/.test(s)) return undefined;
    const n = Number(s);
    return n <= 65535 ? n : undefined;
  };
  for (const piece of pieces) {
    const m = /^([^-]+)-([^-]+)$/.exec(piece);
    if (m) {
      const lo = port(m[1] ?? '');
      const hi = port(m[2] ?? '');
      if (lo === undefined || hi === undefined)
        return `Invalid port range ${piece}: ports are 1 to 65535, without leading zeros`;
      if (hi <= lo) return `Invalid port range ${piece}: the end must be greater than the start`;
      out.push([lo, hi]);
      count += 2;
    } else {
      const n = port(piece);
      if (n === undefined)
        return `Invalid port ${piece}: ports are 1 to 65535, without leading zeros`;
      out.push([n, n]);
      count += 1;
    }
  }
  if (count > MAX_PORT_PIECES)
    return `Too many ports: at most ${MAX_PORT_PIECES} pieces (a range counts as two)`;
  return out;
}

interface Net4 {
  base: number;
  bits: number;
}
interface Net6 {
  base: bigint;
  bits: number;
}

/** `a.b.c.d/n` (host bits may be set: the network is what counts). */
export function parseNet4(text: string): Net4 | undefined {
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const n = ipv4ToNum(m[1] ?? '');
  const bits = Number(m[2]);
  const leadingZero = (m[2] ?? '').length > 1 && (m[2] ?? '').startsWith('0');
  if (Number.isNaN(n) || bits > 32 || leadingZero) return undefined;
  const size = 2 ** (32 - bits);
  return { base: n - (n % size), bits };
}

const v6Big = (groups: readonly number[]): bigint =>
  groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);

/** `addr/n` for IPv6 (no zone id). */
export function parseNet6(text: string): Net6 | undefined {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const g = parseIpv6(m[1] ?? '');
  const bits = Number(m[2]);
  if (!g || bits > 128 || ((m[2] ?? '').length > 1 && (m[2] ?? '').startsWith('0')))
    return undefined;
  const host = (1n << BigInt(128 - bits)) - 1n;
  return { base: v6Big(g) & ~host, bits };
}

/**
 * Checks a firewall's rules (both directions) into `fe`; returns the normalised rules. An entry
 * `{ruleset: id}` names a rule set (whether it is one of the account's is the service's check)
 * and counts as one rule.
 */
export function checkRules(
  fe: FieldErrors,
  prefix: string,
  input: { inbound?: RuleInput[]; outbound?: RuleInput[] },
): RuleSet {
  const out: RuleSet = { inbound: [], outbound: [] };
  const total = (input.inbound?.length ?? 0) + (input.outbound?.length ?? 0);
  if (total > MAX_RULES)
    fe.add(prefix || undefined, `Too many rules: at most ${MAX_RULES} across inbound and outbound`);
  for (const dir of ['inbound', 'outbound'] as const) {
    (input[dir] ?? []).forEach((r, i) => {
      const f = `${prefix ? `${prefix}.` : ''}${dir}[${i}]`;
      if (r.ruleset === undefined) {
        out[dir].push(checkRule(fe, f, r));
        return;
      }
      const extra = (
        ['protocol', 'ports', 'addresses', 'action', 'label', 'description'] as const
      ).filter((k) => r[k] !== undefined && r[k] !== null);
      if (extra.length > 0)
        fe.add(
          `${f}.ruleset`,
          `A rule that names a rule set has no other fields (${extra.join(', ')})`,
        );
      out[dir].push({ ruleset: r.ruleset });
    });
  }
  return out;
}

/** Checks one ordinary rule (a rule set's rules name no rule set). */
export function checkRule(fe: FieldErrors, f: string, r: RuleInput): Rule {
  if (r.ruleset !== undefined) fe.add(`${f}.ruleset`, 'A rule set cannot name another rule set');
  for (const k of ['protocol', 'action', 'addresses'] as const)
    if (r[k] === undefined) fe.add(`${f}.${k}`, `${k} is required`);
  const protocol = r.protocol as Protocol;
  const rule: Rule = { protocol, addresses: {}, action: r.action as Policy };
  if (r.ports !== undefined && r.ports !== null) {
    if (protocol === 'ICMP' || protocol === 'IPENCAP') {
      fe.add(`${f}.ports`, `Ports are not allowed for the ${protocol} protocol`);
    } else {
      const parsed = parsePorts(r.ports);
      if (typeof parsed === 'string') fe.add(`${f}.ports`, parsed);
      else rule.ports = r.ports;
    }
  }
  const { ipv4, ipv6 } = r.addresses ?? {};
  if (r.addresses !== undefined && ipv4 === undefined && ipv6 === undefined)
    fe.add(`${f}.addresses`, 'addresses must contain ipv4, ipv6 or both');
  if (ipv4 !== undefined) {
    if (ipv4.length === 0) fe.add(`${f}.addresses.ipv4`, 'Must not be an empty list');
    const bad = ipv4.find((a) => !parseNet4(a));
    if (bad !== undefined)
      fe.add(`${f}.addresses.ipv4`, `${bad} is not an IPv4 address in IP/mask format`);
    rule.addresses.ipv4 = [...ipv4];
  }
  if (ipv6 !== undefined) {
    if (ipv6.length === 0) fe.add(`${f}.addresses.ipv6`, 'Must not be an empty list');
    const bad = ipv6.find((a) => !parseNet6(a));
    if (bad !== undefined)
      fe.add(`${f}.addresses.ipv6`, `${bad} is not an IPv6 address in IP/mask format`);
    rule.addresses.ipv6 = [...ipv6];
  }
  if ((ipv4?.length ?? 0) + (ipv6?.length ?? 0) > MAX_ADDRESSES)
    fe.add(`${f}.addresses`, `At most ${MAX_ADDRESSES} addresses per rule`);
  if (r.label !== undefined) {
    if (r.label.length < 3 || r.label.length > 32)
      fe.add(`${f}.label`, 'Rule label must be 3 to 32 characters');
    rule.label = r.label;
  }
  if (r.description !== undefined) {
    if (r.description.length < 1 || r.description.length > 100)
      fe.add(`${f}.description`, 'Rule description must be 1 to 100 characters');
    rule.description = r.description;
  }
  return rule;
}

export interface Packet {
  direction: 'inbound' | 'outbound';
  protocol: Protocol;
  /** TCP and UDP only. */
  port?: number;
  /** The remote address (source of inbound, destination of outbound traffic). */
  address: string;
}

export interface Verdict {
  action: Policy;
  /** The index of the deciding rule in its direction, or null when the policy decided. */
  rule_index: number | null;
  rule: Rule | null;
}

function matchesAddress(rule: Rule, address: string): boolean {
  const v4 = ipv4ToNum(address);
  if (!Number.isNaN(v4)) {
    return (rule.addresses.ipv4 ?? []).some((t) => {
      const n = parseNet4(t);
      return n !== undefined && v4 - (v4 % 2 ** (32 - n.bits)) === n.base;
    });
  }
  const g = parseIpv6(address);
  if (!g) return false;
  const a = v6Big(g);
  return (rule.addresses.ipv6 ?? []).some((t) => {
    const n = parseNet6(t);
    if (!n) return false;
    const host = (1n << BigInt(128 - n.bits)) - 1n;
    return (a & ~host) === n.base;
  });
}

function matchesPort(rule: Rule, p: Packet): boolean {
  if (rule.ports === undefined || p.port === undefined) return true;
  const ranges = parsePorts(rule.ports);
  if (typeof ranges === 'string') return false;
  const port = p.port;
  return ranges.some(([lo, hi]) => port >= lo && port <= hi);
}

/** The rules in order, the first match wins; otherwise the direction's policy. */
export function evaluate(rules: ExpandedRules, policy: Policy, p: Packet): Verdict {
  const list = rules[p.direction];
  for (let i = 0; i < list.length; i++) {
    const r = list[i] as Rule;
    if (r.protocol === p.protocol && matchesPort(r, p) && matchesAddress(r, p.address))
      return { action: r.action, rule_index: i, rule: r };
  }
  return { action: policy, rule_index: null, rule: null };
}
