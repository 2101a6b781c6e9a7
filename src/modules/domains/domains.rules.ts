import ipaddr from 'ipaddr.js';
import { isIpv4, isIpv6 } from '../../lib/ip.js';

/**
 * The valid values of a domain's `refresh_sec`, `retry_sec`, `expire_sec` and `ttl_sec` and of a
 * record's `ttl_sec`. Any other value is rounded up to the next one (beyond the last: the last);
 * 0 stays 0 and means the default. The real service answers what it stored: 600 shows as 3600.
 */
export const VALID_SECONDS = [
  30, 120, 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600, 2419200,
] as const;

export function roundSeconds(n: number): number {
  if (n <= 0) return 0;
  for (const v of VALID_SECONDS) if (n <= v) return v;
  return VALID_SECONDS[VALID_SECONDS.length - 1] as number;
}

/** What 0 stands for in each of a domain's timers (reference). */
export const DOMAIN_DEFAULTS = {
  refresh_sec: 14400,
  retry_sec: 14400,
  expire_sec: 1209600,
  ttl_sec: 86400,
} as const;

/** The reference's pattern of `domain` (`\A…\Z` written as `^…$`). */
export const DOMAIN_PATTERN =
  /^(\*\.)?([a-zA-Z0-9-_]{1,63}\.)+([a-zA-Z]{2,3}\.)?([a-zA-Z]{2,16}|xn--[a-zA-Z0-9]+)$/;

/** The zone's key: lowercased, without a trailing dot. */
export const domainKey = (domain: string): string => domain.replace(/\.$/, '').toLowerCase();

export function domainProblem(domain: string): string | undefined {
  const d = domain.replace(/\.$/, '');
  if (d.length < 1 || d.length > 253 || !DOMAIN_PATTERN.test(d))
    return 'Domain is not valid. Labels must be 1 to 63 letters, digits, hyphens or underscores, and the name must end in a top-level domain.';
  return undefined;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const isEmail = (s: string): boolean => s.length <= 254 && EMAIL.test(s);

/** An IP address (either family). */
export const isIp = (s: string): boolean => isIpv4(s) || isIpv6(s);

/** The combined length limit of `master_ips` and `axfr_ips` (reference: 1000 characters). */
export const IP_LIST_MAX_CHARS = 1000;

/** Whether `address` (v4, v6 or v4-mapped v6) is one of `list`. */
export function ipIn(address: string, list: readonly string[]): boolean {
  const a = normalIp(address);
  return a !== undefined && list.some((x) => normalIp(x) === a);
}

function normalIp(s: string): string | undefined {
  try {
    const p = ipaddr.process(s);
    return p.toNormalizedString();
  } catch {
    return undefined;
  }
}

/** The SOA's responsible-person mailbox (`rname`) of an email: `a.b@example.com` → `a\.b.example.com`. */
export function soaRname(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email;
  return `${email.slice(0, at).replace(/\./g, '\\.')}.${email.slice(at + 1)}`;
}

/** The email of an SOA `rname`: the first unescaped dot is the `@`. */
export function rnameEmail(rname: string): string {
  const name = rname.replace(/\.$/, '');
  for (let i = 0; i < name.length; i++) {
    if (name[i] === '\\') {
      i++;
      continue;
    }
    if (name[i] === '.') return `${name.slice(0, i).replace(/\\\./g, '.')}@${name.slice(i + 1)}`;
  }
  return name;
}

/** The next SOA serial: date-based (YYYYMMDDnn), always moving forward. */
export function nextSerial(current: number, nowMs: number): number {
  const d = new Date(nowMs);
  const dated = (d.getUTCFullYear() * 10000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate()) * 100;
  return Math.max(current + 1, dated) % 4294967296;
}

/** A random zone version (1 to 2^53 - 1): names one state of a zone, reset-proof. */
export const newZoneVersion = (): number =>
  1 + Math.floor(Math.random() * (Number.MAX_SAFE_INTEGER - 1));

/** RFC 1982 serial arithmetic: whether serial `a` is newer than `b`. */
export function serialNewer(a: number, b: number): boolean {
  if (a === b) return false;
  const diff = (a - b + 4294967296) % 4294967296;
  return diff < 2147483648;
}
