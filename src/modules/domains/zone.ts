import type { DomainRecordsTable, DomainsTable } from './domains.table.js';
import { DOMAIN_DEFAULTS, soaRname } from './domains.rules.js';

/**
 * One resource record of a served zone, in the form the DNS wire library (dns-packet) encodes:
 * `name` is the owner, fully qualified without the trailing dot; `data` is the type's data
 * (a string for A, AAAA, NS, CNAME, PTR; an object for SOA, MX, SRV, CAA; strings for TXT).
 * Slave zones keep their transferred records in this form (JSON).
 */
export interface ZoneRecord {
  name: string;
  type: ZoneRecordType;
  ttl: number;
  data: ZoneData;
}

export type ZoneRecordType =
  | 'SOA'
  | 'A'
  | 'AAAA'
  | 'NS'
  | 'MX'
  | 'CNAME'
  | 'TXT'
  | 'SRV'
  | 'PTR'
  | 'CAA';

export interface SoaData {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}
export type ZoneData =
  | string
  | string[]
  | SoaData
  | { preference: number; exchange: string }
  | { priority: number; weight: number; port: number; target: string }
  | { flags: number; tag: string; value: string };

type DomainRow = Pick<
  DomainsTable,
  'domain' | 'soa_email' | 'refresh_sec' | 'retry_sec' | 'expire_sec' | 'ttl_sec' | 'serial'
>;
type RecordRow = Pick<
  DomainRecordsTable,
  'type' | 'name' | 'target' | 'priority' | 'weight' | 'port' | 'tag' | 'ttl_sec'
>;

/** A domain's timers with 0 read as the default. */
export function effectiveTimers(d: Pick<DomainRow, keyof typeof DOMAIN_DEFAULTS>) {
  return {
    refresh: d.refresh_sec || DOMAIN_DEFAULTS.refresh_sec,
    retry: d.retry_sec || DOMAIN_DEFAULTS.retry_sec,
    expire: d.expire_sec || DOMAIN_DEFAULTS.expire_sec,
    ttl: d.ttl_sec || DOMAIN_DEFAULTS.ttl_sec,
  };
}

/** TXT data as character-strings of at most 255 bytes each (RFC 1035). */
export function txtStrings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= 255) return [value];
  const out: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + 255, bytes.length);
    // Never split a UTF-8 sequence: back up to a character boundary.
    while (end < bytes.length && end > start && ((bytes[end] as number) & 0xc0) === 0x80) end--;
    out.push(bytes.subarray(start, end).toString('utf8'));
    start = end;
  }
  return out;
}

/**
 * The records a master domain serves: its SOA and the name servers' NS records at the apex
 * (generated, as the real service does), then its own records with their TTLs (0: the domain's).
 */
export function masterZoneRecords(
  d: DomainRow,
  records: readonly RecordRow[],
  nameservers: readonly string[],
): ZoneRecord[] {
  const apex = d.domain.replace(/\.$/, '').toLowerCase();
  const t = effectiveTimers(d);
  const out: ZoneRecord[] = [
    {
      name: apex,
      type: 'SOA',
      ttl: t.ttl,
      data: {
        mname: nameservers[0] ?? `ns1.${apex}`,
        rname: soaRname(d.soa_email),
        serial: d.serial,
        refresh: t.refresh,
        retry: t.retry,
        expire: t.expire,
        minimum: t.ttl,
      },
    },
    ...nameservers.map((ns): ZoneRecord => ({ name: apex, type: 'NS', ttl: t.ttl, data: ns })),
  ];
  for (const r of records) {
    const name = r.name === '' ? apex : `${r.name}.${apex}`;
    const ttl = r.ttl_sec || t.ttl;
    out.push({ name, type: r.type, ttl, data: recordData(r) });
  }
  return out;
}

function recordData(r: RecordRow): ZoneData {
  switch (r.type) {
    case 'MX':
      return { preference: r.priority, exchange: r.target === '' ? '.' : r.target };
    case 'SRV':
      return { priority: r.priority, weight: r.weight, port: r.port, target: r.target };
    case 'TXT':
      return txtStrings(r.target);
    case 'CAA':
      return { flags: 0, tag: r.tag ?? 'issue', value: r.target };
    default:
      return r.target;
  }
}
