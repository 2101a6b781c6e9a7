import type { SoaData, ZoneRecord } from '../zone.js';

export type Rcode = 'NOERROR' | 'NXDOMAIN' | 'REFUSED' | 'SERVFAIL';

/** What an authoritative server answers for one question about a zone it serves. */
export interface Answer {
  rcode: Rcode;
  /** The AA bit: set for answers from the zone's own data, not for referrals. */
  authoritative: boolean;
  answers: ZoneRecord[];
  authorities: ZoneRecord[];
  additionals: ZoneRecord[];
}

const lower = (s: string) => s.toLowerCase();

/**
 * A zone indexed for answering: records by owner name and type, every name that exists
 * (empty non-terminals included), and the delegation points (NS below the apex).
 */
export class Zone {
  readonly apex: string;
  private readonly byName = new Map<string, Map<string, ZoneRecord[]>>();
  private readonly names = new Set<string>();
  readonly soa: ZoneRecord;

  constructor(
    apex: string,
    readonly records: readonly ZoneRecord[],
  ) {
    this.apex = lower(apex.replace(/\.$/, ''));
    for (const r of records) {
      const n = lower(r.name);
      let types = this.byName.get(n);
      if (!types) {
        types = new Map();
        this.byName.set(n, types);
      }
      const list = types.get(r.type) ?? [];
      list.push(r);
      types.set(r.type, list);
      // Every ancestor up to the apex exists too (empty non-terminals answer NODATA).
      for (let name = n; name.length > this.apex.length; ) {
        this.names.add(name);
        const dot = name.indexOf('.');
        if (dot < 0) break;
        name = name.slice(dot + 1);
      }
    }
    this.names.add(this.apex);
    const soa = this.byName.get(this.apex)?.get('SOA')?.[0];
    if (!soa) throw new Error(`zone ${apex} has no SOA record`);
    this.soa = soa;
  }

  get serial(): number {
    return (this.soa.data as SoaData).serial;
  }

  /** Whether `name` is the apex or below it. */
  contains(name: string): boolean {
    const n = lower(name);
    return n === this.apex || n.endsWith(`.${this.apex}`);
  }

  private rrset(name: string, type: string): ZoneRecord[] {
    return this.byName.get(name)?.get(type) ?? [];
  }

  /** The SOA for a negative answer: its TTL is the smaller of its own and its minimum (RFC 2308). */
  private negativeSoa(): ZoneRecord {
    const minimum = (this.soa.data as SoaData).minimum;
    return { ...this.soa, ttl: Math.min(this.soa.ttl, minimum) };
  }

  /** The closest delegation point (NS records below the apex) at or above `name`, if any. */
  private delegation(name: string): string | undefined {
    const rel = name.slice(0, name.length - this.apex.length - 1).split('.');
    for (let i = rel.length - 1; i >= 0; i--) {
      const cut = `${rel.slice(i).join('.')}.${this.apex}`;
      if (this.rrset(cut, 'NS').length > 0) return cut;
    }
    return undefined;
  }

  /** A/AAAA records of in-zone targets of NS, MX and SRV answers (the additional section). */
  private glue(records: readonly ZoneRecord[]): ZoneRecord[] {
    const out: ZoneRecord[] = [];
    for (const r of records) {
      let host: string | undefined;
      if (r.type === 'NS') host = r.data as string;
      else if (r.type === 'MX') host = (r.data as { exchange: string }).exchange;
      else if (r.type === 'SRV') host = (r.data as { target: string }).target;
      if (!host || !this.contains(host)) continue;
      const h = lower(host);
      out.push(...this.rrset(h, 'A'), ...this.rrset(h, 'AAAA'));
    }
    return out;
  }

  /** A wildcard's records for `name`, with the owner rewritten to the name asked. */
  private wildcard(name: string): Map<string, ZoneRecord[]> | undefined {
    // The closest encloser: the nearest existing ancestor.
    let ce = name;
    while (ce !== this.apex && !this.names.has(ce)) ce = ce.slice(ce.indexOf('.') + 1);
    const node = this.byName.get(`*.${ce}`);
    if (!node) return undefined;
    const out = new Map<string, ZoneRecord[]>();
    for (const [t, rs] of node)
      out.set(
        t,
        rs.map((r) => ({ ...r, name })),
      );
    return out;
  }

  /**
   * The answer to (name, type) as an authoritative server gives it (RFC 1034 4.3.2): the
   * records; a CNAME and what it leads to inside the zone; a referral below a delegation; NODATA
   * (NOERROR, no answer, the SOA) for a name that exists without that type; NXDOMAIN with the
   * SOA for a name that does not exist; wildcards for names below a `*` record's parent.
   */
  answer(qname: string, qtype: string): Answer {
    const result: Answer = {
      rcode: 'NOERROR',
      authoritative: true,
      answers: [],
      authorities: [],
      additionals: [],
    };
    let name = lower(qname.replace(/\.$/, ''));
    const seen = new Set<string>();
    for (let hop = 0; hop < 8; hop++) {
      if (!this.contains(name)) return result; // a CNAME leading out of the zone
      seen.add(name);
      const cut = name === this.apex ? undefined : this.delegation(name);
      if (cut !== undefined && !(cut === name && qtype === 'DS')) {
        if (result.answers.length === 0) result.authoritative = false;
        const ns = this.rrset(cut, 'NS');
        result.authorities.push(...ns);
        result.additionals.push(...this.glue(ns));
        return result;
      }
      let node: Map<string, ZoneRecord[]> | undefined = this.byName.get(name);
      let exists = this.names.has(name);
      if (!node && !exists) {
        node = this.wildcard(name);
        exists = node !== undefined;
      }
      if (!exists) {
        if (result.answers.length === 0) result.rcode = 'NXDOMAIN';
        result.authorities.push(this.negativeSoa());
        return result;
      }
      const cname = node?.get('CNAME') ?? [];
      if (cname.length > 0 && qtype !== 'CNAME' && qtype !== 'ANY') {
        result.answers.push(...cname);
        const target = lower(cname[0]?.data as string);
        if (seen.has(target)) return result;
        name = target;
        continue;
      }
      const found =
        node === undefined
          ? []
          : qtype === 'ANY'
            ? [...node.values()].flat()
            : (node.get(qtype) ?? []);
      if (found.length === 0) {
        result.authorities.push(this.negativeSoa());
        return result;
      }
      result.answers.push(...found);
      result.additionals.push(...this.glue(found));
      return result;
    }
    return result;
  }

  /** The records of a zone transfer: the SOA, every other record, the SOA again (RFC 5936). */
  transfer(): ZoneRecord[] {
    return [this.soa, ...this.records.filter((r) => r !== this.soa), this.soa];
  }
}
