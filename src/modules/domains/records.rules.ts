import { FieldErrors } from '../../errors/errors.js';
import { isIpv4, isIpv6 } from '../../lib/ip.js';
import type { RecordType } from './domains.table.js';
import { isEmail, roundSeconds } from './domains.rules.js';

/** Each domain holds at most this many records (reference). */
export const MAX_RECORDS = 12000;

/** A record's values after the per-type rules: what is stored. */
export interface RecordValues {
  type: RecordType;
  name: string;
  target: string;
  priority: number;
  weight: number;
  port: number;
  service: string | null;
  protocol: string | null;
  tag: string | null;
  ttl_sec: number;
}

/** A record's values as a request gives them (create: the body; update: stored ⊕ body). */
export interface RecordInput {
  type: RecordType;
  name?: string | null | undefined;
  target?: string | null | undefined;
  priority?: number | null | undefined;
  weight?: number | null | undefined;
  port?: number | null | undefined;
  service?: string | null | undefined;
  protocol?: string | null | undefined;
  tag?: string | null | undefined;
  ttl_sec?: number | null | undefined;
}

const LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
const HOST_LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;
/** An SRV service or protocol label (without its `_`): underscores too (the SDKs' `service_test`). */
const SERVICE = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

const stripDot = (s: string): string => s.replace(/\.$/, '');

/**
 * A record name relative to the zone: a name inside the zone given fully (`www.example.com`,
 * with or without the trailing dot) loses the zone, as the real service stores it; the zone
 * itself is `""`.
 */
export function relativeName(raw: string, zone: string): string {
  const n = stripDot(raw.trim());
  const lower = n.toLowerCase();
  if (lower === zone || lower === '@') return '';
  if (lower.endsWith(`.${zone}`)) return n.slice(0, n.length - zone.length - 1);
  return n;
}

/** Whether a relative record name is valid: labels, and `*` as the leftmost one where allowed. */
function nameOk(name: string, wildcard: boolean): boolean {
  if (name === '') return true;
  const labels = name.split('.');
  return labels.every((l, i) => (i === 0 && wildcard && l === '*') || LABEL.test(l));
}

/** A host name: 1 to 253 characters of labels, `*` leftmost where allowed. */
export function hostOk(host: string, wildcard = false): boolean {
  const h = stripDot(host);
  if (h.length === 0 || h.length > 253) return false;
  return h.split('.').every((l, i) => (i === 0 && wildcard && l === '*') || HOST_LABEL.test(l));
}

/** A target host: a single label is a name inside the zone (`www` → `www.example.com`). */
function expandHost(target: string, zone: string): string {
  const t = stripDot(target.trim());
  return t.includes('.') ? t : `${t}.${zone}`;
}

function iodefOk(value: string): boolean {
  if (value.startsWith('mailto:')) return isEmail(value.slice('mailto:'.length));
  const url = /^https?:\/\/(.+)$/.exec(value);
  if (url) {
    try {
      return hostOk(new URL(value).hostname);
    } catch {
      return false;
    }
  }
  return hostOk(value);
}

/**
 * The per-type rules of a record (reference, DomainRecord): which fields are required, their
 * forms and defaults, and how names and targets are stored. Throws a 400 naming every failing
 * field. `remoteAddr` is the caller's address, for an A record's `[remote_addr]`.
 */
export function recordValues(input: RecordInput, zone: string, remoteAddr: string): RecordValues {
  const fe = new FieldErrors();
  const type = input.type;
  const rawName = input.name ?? '';
  let name = relativeName(rawName, zone);
  let target = (input.target ?? '').trim();
  let priority = input.priority ?? 0;
  const weight = input.weight ?? 0;
  const port = input.port ?? 0;
  let service = input.service ?? null;
  let protocol = input.protocol ?? null;
  const tag = input.tag ?? null;
  const ttl = roundSeconds(input.ttl_sec ?? 0);

  const needTarget = () =>
    fe.check(target === '', 'target', `target is required for ${type} records`);
  const wildcardName = type !== 'NS' && type !== 'SRV';
  if (type !== 'SRV' && !nameOk(name, wildcardName)) {
    fe.add(
      'name',
      type === 'NS' && name.split('.')[0] === '*'
        ? 'Wildcard NS records are not supported.'
        : 'name must be letters, digits, hyphens and underscores in labels of 1 to 63 characters',
    );
  }

  switch (type) {
    case 'A':
    case 'AAAA': {
      if (type === 'A' && target === '[remote_addr]') target = remoteAddr;
      if (needTarget()) break;
      const ok = type === 'A' ? isIpv4(target) : isIpv6(target);
      fe.check(!ok, 'target', `target must be a valid ${type === 'A' ? 'IPv4' : 'IPv6'} address`);
      break;
    }
    case 'NS':
    case 'CNAME':
    case 'PTR': {
      if (needTarget()) break;
      if (!hostOk(target)) fe.add('target', 'target must be a valid domain');
      else target = type === 'PTR' ? stripDot(target) : expandHost(target, zone);
      if (type === 'CNAME') fe.check(name === '', 'name', 'name is required for CNAME records');
      break;
    }
    case 'MX': {
      // A Null MX (RFC 7505): empty name and target, priority 0.
      if (target === '' && name === '') {
        fe.check(priority !== 0, 'priority', 'priority must be 0 for a Null MX record');
        break;
      }
      if (needTarget()) break;
      if (!hostOk(target, true)) fe.add('target', 'target must be a valid domain');
      else target = expandHost(target, zone);
      break;
    }
    case 'TXT':
      needTarget();
      break;
    case 'SRV': {
      service = service === null ? null : service.replace(/^_/, '');
      protocol = (protocol ?? 'tcp').replace(/^_/, '');
      if (service === null || service === '')
        fe.add('service', 'service is required for SRV records');
      else
        fe.check(
          !SERVICE.test(service),
          'service',
          'service must be letters, digits, underscores and hyphens',
        );
      fe.check(
        !SERVICE.test(protocol),
        'protocol',
        'protocol must be letters, digits, underscores and hyphens',
      );
      fe.check(input.priority == null, 'priority', 'priority is required for SRV records');
      fe.check(input.weight == null, 'weight', 'weight is required for SRV records');
      fe.check(input.port == null, 'port', 'port is required for SRV records');
      if (!needTarget()) {
        if (!hostOk(target)) fe.add('target', 'target must be a valid domain');
        else target = expandHost(target, zone);
      }
      name = service ? `_${service}._${protocol}` : name;
      break;
    }
    case 'CAA': {
      if (tag === null) {
        fe.add('tag', 'tag is required for CAA records');
        break;
      }
      if (needTarget()) break;
      const value = target;
      if (tag === 'issue') {
        const issuer = (value.split(';')[0] ?? '').trim();
        fe.check(
          issuer !== '' && !hostOk(issuer),
          'target',
          'target must begin with the domain of a certificate issuer',
        );
      } else if (tag === 'issuewild') {
        fe.check(
          value.startsWith('*') || !hostOk(value.split(';')[0]?.trim() ?? ''),
          'target',
          'target must be the domain of a certificate issuer, not starting with *',
        );
      } else {
        fe.check(
          !iodefOk(value),
          'target',
          'target must be a domain, an http(s) URL or a mailto: address',
        );
      }
      break;
    }
  }
  if (type !== 'MX' && type !== 'SRV') priority = input.priority ?? 0;
  fe.throwIfAny();
  return {
    type,
    name,
    target,
    priority,
    weight,
    port,
    service: type === 'SRV' ? service : (input.service ?? null),
    protocol: type === 'SRV' ? protocol : (input.protocol ?? null),
    tag,
    ttl_sec: ttl,
  };
}
