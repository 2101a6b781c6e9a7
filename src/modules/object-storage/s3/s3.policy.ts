import ipaddr from 'ipaddr.js';
import { s3errors } from './s3.errors.js';

/**
 * Bucket policies, as S3 and Ceph RGW read them: statements of Effect, Principal (or
 * NotPrincipal), Action (or NotAction), Resource (or NotResource) and Condition. An explicit
 * Deny wins over any Allow; a request no statement names falls back to the ACLs.
 */

export interface PolicyStatement {
  effect: 'Allow' | 'Deny';
  /** Canonical ids (or '*'); undefined when the statement names NotPrincipal. */
  principal?: string[];
  notPrincipal?: string[];
  action?: string[];
  notAction?: string[];
  resource?: string[];
  notResource?: string[];
  conditions: Condition[];
}

interface Condition {
  /** The operator without its set prefix and IfExists suffix (`StringLike`). */
  op: string;
  set: 'ForAnyValue' | 'ForAllValues' | undefined;
  ifExists: boolean;
  key: string;
  values: string[];
}

export interface PolicyRequest {
  /** The caller's canonical id, or null when anonymous. */
  principal: string | null;
  /** `s3:GetObject` and the like. */
  action: string;
  /** `arn:aws:s3:::bucket` or `arn:aws:s3:::bucket/key`. */
  resource: string;
  /** Condition keys (lower-case) and their values in this request. */
  context: ReadonlyMap<string, readonly string[]>;
}

const OPERATORS = new Set([
  'StringEquals',
  'StringNotEquals',
  'StringEqualsIgnoreCase',
  'StringNotEqualsIgnoreCase',
  'StringLike',
  'StringNotLike',
  'NumericEquals',
  'NumericNotEquals',
  'NumericLessThan',
  'NumericLessThanEquals',
  'NumericGreaterThan',
  'NumericGreaterThanEquals',
  'DateEquals',
  'DateNotEquals',
  'DateLessThan',
  'DateLessThanEquals',
  'DateGreaterThan',
  'DateGreaterThanEquals',
  'Bool',
  'BinaryEquals',
  'IpAddress',
  'NotIpAddress',
  'ArnEquals',
  'ArnLike',
  'ArnNotEquals',
  'ArnNotLike',
  'Null',
]);

const NEGATED = new Set([
  'StringNotEquals',
  'StringNotEqualsIgnoreCase',
  'StringNotLike',
  'NumericNotEquals',
  'DateNotEquals',
  'NotIpAddress',
  'ArnNotEquals',
  'ArnNotLike',
]);

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

function strings(v: unknown, what: string): string[] {
  const out = list(v);
  if (out.length === 0 || !out.every((s) => typeof s === 'string' && s !== ''))
    throw s3errors.malformedPolicy(`Policy has an invalid ${what}`);
  return out as string[];
}

/** The canonical id a principal names: `*`, a canonical id, or an IAM ARN of a user or account. */
function principalId(p: string): string {
  if (p === '*') return '*';
  const arn = /^arn:aws:iam::([^:]*):(root|user\/(.+))$/.exec(p);
  if (arn) return arn[3] ?? arn[1] ?? '';
  if (p.startsWith('arn:')) throw s3errors.malformedPolicy('Invalid principal in policy');
  return p;
}

function principals(v: unknown): string[] {
  if (v === '*') return ['*'];
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw s3errors.malformedPolicy('Invalid principal in policy');
  const out: string[] = [];
  for (const [kind, ids] of Object.entries(v as Record<string, unknown>)) {
    if (kind !== 'AWS' && kind !== 'CanonicalUser')
      throw s3errors.malformedPolicy('Invalid principal in policy');
    for (const id of strings(ids, 'principal')) out.push(principalId(id));
  }
  if (out.length === 0) throw s3errors.malformedPolicy('Invalid principal in policy');
  return out;
}

function conditions(v: unknown): Condition[] {
  if (v === undefined) return [];
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw s3errors.malformedPolicy('Policy has an invalid condition');
  const out: Condition[] = [];
  for (const [name, keys] of Object.entries(v as Record<string, unknown>)) {
    const m = /^(?:(ForAnyValue|ForAllValues):)?(\w+?)(IfExists)?$/.exec(name);
    if (!m || !OPERATORS.has(m[2] ?? '') || (m[2] === 'Null' && m[3]))
      throw s3errors.malformedPolicy(`Invalid Condition operator ${name}`);
    if (!keys || typeof keys !== 'object' || Array.isArray(keys))
      throw s3errors.malformedPolicy('Policy has an invalid condition');
    for (const [key, values] of Object.entries(keys as Record<string, unknown>)) {
      const vals = list(values).map((x) =>
        typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : null,
      );
      if (vals.length === 0 || vals.includes(null))
        throw s3errors.malformedPolicy(`Policy has an invalid condition value for ${key}`);
      if (m[2] === 'IpAddress' || m[2] === 'NotIpAddress') {
        for (const ip of vals as string[]) {
          if (!validCidr(ip))
            throw s3errors.malformedPolicy(`Policy has an invalid IP address ${ip}`);
        }
      }
      out.push({
        op: m[2] as string,
        set: m[1] as Condition['set'],
        ifExists: m[3] !== undefined,
        key: key.toLowerCase(),
        values: vals as string[],
      });
    }
  }
  return out;
}

/**
 * Parses and checks a policy document for `bucket`: JSON, a known Version, statements with an
 * Effect, a principal, actions of S3 and resources of this bucket. Anything else is refused as S3
 * refuses it (MalformedPolicy, naming what is wrong).
 */
export function parsePolicy(textBody: string, bucket: string): PolicyStatement[] {
  let doc: unknown;
  try {
    doc = JSON.parse(textBody);
  } catch {
    throw s3errors.malformedPolicy('This policy contains invalid Json');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw s3errors.malformedPolicy('This policy contains invalid Json');
  const d = doc as Record<string, unknown>;
  if (d.Version !== undefined && d.Version !== '2012-10-17' && d.Version !== '2008-10-17')
    throw s3errors.malformedPolicy('The policy must contain a valid version string');
  if (d.Statement === undefined) throw s3errors.malformedPolicy('Missing required field Statement');
  const out: PolicyStatement[] = [];
  for (const raw of list(d.Statement)) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw s3errors.malformedPolicy('Policy has an invalid statement');
    const s = raw as Record<string, unknown>;
    if (s.Effect !== 'Allow' && s.Effect !== 'Deny')
      throw s3errors.malformedPolicy('Invalid effect');
    if ((s.Principal === undefined) === (s.NotPrincipal === undefined))
      throw s3errors.malformedPolicy('Missing required field Principal');
    // S3 and RGW take NotPrincipal only in a Deny: an Allow to everyone but some is refused.
    if (s.NotPrincipal !== undefined && s.Effect === 'Allow')
      throw s3errors.malformedPolicy('Invalid principal in policy: NotPrincipal with Allow');
    if ((s.Action === undefined) === (s.NotAction === undefined))
      throw s3errors.malformedPolicy('Missing required field Action');
    if ((s.Resource === undefined) === (s.NotResource === undefined))
      throw s3errors.malformedPolicy('Missing required field Resource');
    const actions = strings(s.Action ?? s.NotAction, 'action');
    for (const a of actions) {
      if (a !== '*' && !/^s3:[A-Za-z0-9*?]+$/.test(a))
        throw s3errors.malformedPolicy('Policy has invalid action');
    }
    const resources = strings(s.Resource ?? s.NotResource, 'resource');
    for (const r of resources) {
      const m = /^arn:aws:s3:::([^/]+)(\/.*)?$/.exec(r);
      if (!m || !globMatch(m[1] ?? '', bucket))
        throw s3errors.malformedPolicy('Policy has invalid resource');
    }
    const who = principals(s.Principal ?? s.NotPrincipal);
    out.push({
      effect: s.Effect,
      ...(s.Principal !== undefined ? { principal: who } : { notPrincipal: who }),
      ...(s.Action !== undefined ? { action: actions } : { notAction: actions }),
      ...(s.Resource !== undefined ? { resource: resources } : { notResource: resources }),
      conditions: conditions(s.Condition),
    });
  }
  return out;
}

/** `*` and `?` globs, as policies write them. */
export function globMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, ignoreCase ? 'is' : 's').test(value);
}

function validCidr(s: string): boolean {
  try {
    if (s.includes('/')) ipaddr.parseCIDR(s);
    else ipaddr.parse(s);
    return true;
  } catch {
    return false;
  }
}

function ipIn(ip: string, cidr: string): boolean {
  try {
    let addr = ipaddr.parse(ip);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    const [range, bits] = cidr.includes('/')
      ? ipaddr.parseCIDR(cidr)
      : [ipaddr.parse(cidr), ipaddr.parse(cidr).kind() === 'ipv4' ? 32 : 128];
    if (addr.kind() !== range.kind()) return false;
    return addr.match(range, bits);
  } catch {
    return false;
  }
}

function dateOf(s: string): number {
  return /^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s);
}

/** Whether one request value matches one policy value under an operator (negation aside). */
function matchOne(op: string, want: string, have: string): boolean {
  switch (op) {
    case 'StringEquals':
    case 'StringNotEquals':
    case 'ArnEquals':
    case 'ArnNotEquals':
    case 'BinaryEquals':
      return want === have;
    case 'StringEqualsIgnoreCase':
    case 'StringNotEqualsIgnoreCase':
      return want.toLowerCase() === have.toLowerCase();
    case 'StringLike':
    case 'StringNotLike':
    case 'ArnLike':
    case 'ArnNotLike':
      return globMatch(want, have);
    case 'Bool':
      return want.toLowerCase() === have.toLowerCase();
    case 'IpAddress':
    case 'NotIpAddress':
      return ipIn(have, want);
    default:
      break;
  }
  if (op.startsWith('Numeric')) {
    const w = Number(want);
    const h = Number(have);
    if (Number.isNaN(w) || Number.isNaN(h)) return false;
    return compare(op.slice('Numeric'.length), h, w);
  }
  if (op.startsWith('Date')) {
    const w = dateOf(want);
    const h = dateOf(have);
    if (Number.isNaN(w) || Number.isNaN(h)) return false;
    return compare(op.slice('Date'.length), h, w);
  }
  return false;
}

function compare(rel: string, have: number, want: number): boolean {
  switch (rel) {
    case 'Equals':
    case 'NotEquals':
      return have === want;
    case 'LessThan':
      return have < want;
    case 'LessThanEquals':
      return have <= want;
    case 'GreaterThan':
      return have > want;
    case 'GreaterThanEquals':
      return have >= want;
    default:
      return false;
  }
}

function conditionHolds(c: Condition, context: PolicyRequest['context']): boolean {
  const have = context.get(c.key);
  if (c.op === 'Null') {
    const missing = have === undefined || have.length === 0;
    return c.values.some((v) => (v.toLowerCase() === 'true') === missing);
  }
  const negated = NEGATED.has(c.op);
  if (have === undefined || have.length === 0) {
    if (c.ifExists || c.set === 'ForAllValues') return true;
    return negated;
  }
  const anyMatch = (h: string) => c.values.some((w) => matchOne(c.op, w, h));
  let matched: boolean;
  if (c.set === 'ForAllValues') matched = have.every(anyMatch);
  else matched = have.some(anyMatch);
  if (!negated) return matched;
  // Negated operators: no value matches (ForAllValues: no value of the request matches any).
  if (c.set === 'ForAllValues') return have.every((h) => !anyMatch(h));
  return !have.some(anyMatch);
}

const principalMatches = (ids: string[], who: string | null) =>
  ids.some((id) => id === '*' || (who !== null && id === who));
const actionMatches = (patterns: string[], action: string) =>
  patterns.some((p) => p === '*' || globMatch(p, action, true));
const resourceMatches = (patterns: string[], resource: string) =>
  patterns.some((p) => globMatch(p, resource));

function statementApplies(s: PolicyStatement, r: PolicyRequest): boolean {
  if (s.principal && !principalMatches(s.principal, r.principal)) return false;
  if (s.notPrincipal && principalMatches(s.notPrincipal, r.principal)) return false;
  if (s.action && !actionMatches(s.action, r.action)) return false;
  if (s.notAction && actionMatches(s.notAction, r.action)) return false;
  if (s.resource && !resourceMatches(s.resource, r.resource)) return false;
  if (s.notResource && resourceMatches(s.notResource, r.resource)) return false;
  return s.conditions.every((c) => conditionHolds(c, r.context));
}

/** What a policy says of a request: an explicit Deny, an Allow, or nothing. */
export function evaluatePolicy(
  statements: readonly PolicyStatement[],
  r: PolicyRequest,
): 'Deny' | 'Allow' | 'None' {
  let allowed = false;
  for (const s of statements) {
    if (!statementApplies(s, r)) continue;
    if (s.effect === 'Deny') return 'Deny';
    allowed = true;
  }
  return allowed ? 'Allow' : 'None';
}

/**
 * Whether a policy makes the bucket public: an Allow to every principal (`*`) that no condition
 * narrows to named accounts or addresses.
 */
export function isPublicPolicy(statements: readonly PolicyStatement[]): boolean {
  return statements.some(
    (s) =>
      s.effect === 'Allow' &&
      (s.principal?.includes('*') ?? false) &&
      !s.conditions.some(
        (c) =>
          [
            'aws:sourceip',
            'aws:sourcevpc',
            'aws:sourcevpce',
            'aws:sourcearn',
            'aws:sourceaccount',
            'aws:principalaccount',
            'aws:principalarn',
            'aws:userid',
            's3:x-amz-acl',
          ].includes(c.key) || c.key.startsWith('aws:principal'),
      ),
  );
}
