import type { Generated } from 'kysely';

export type DomainType = 'master' | 'slave';
export type DomainStatus = 'active' | 'disabled';
export type RecordType = 'A' | 'AAAA' | 'NS' | 'MX' | 'CNAME' | 'TXT' | 'SRV' | 'PTR' | 'CAA';

export interface DomainsTable {
  id: Generated<number>;
  account_id: number;
  /** The zone's name as given. */
  domain: string;
  /** Lowercased, without a trailing dot: unique across every account. */
  domain_key: string;
  type: DomainType;
  status: DomainStatus;
  description: string;
  /** The deprecated display `group`. */
  display_group: string;
  soa_email: string;
  /** As the API shows them: rounded up to a valid value; 0 means the default. */
  refresh_sec: number;
  retry_sec: number;
  expire_sec: number;
  ttl_sec: number;
  /** JSON arrays of addresses. */
  master_ips: string;
  axfr_ips: string;
  /** The SOA serial: moves forward with every change of the zone. */
  serial: number;
  /**
   * A random number drawn anew by every change of the zone (its records included), in the
   * change's transaction: DNS servers cache a zone while its version is unchanged.
   */
  version: number;
  created: string;
  updated: string;
}

export interface DomainRecordsTable {
  id: Generated<number>;
  domain_id: number;
  type: RecordType;
  /** Relative to the zone ("" is the zone's apex). */
  name: string;
  target: string;
  priority: number;
  weight: number;
  port: number;
  service: string | null;
  protocol: string | null;
  tag: string | null;
  /** 0: the domain's TTL. */
  ttl_sec: number;
  created: string;
  updated: string;
}

/** The copy of a slave zone transferred (AXFR) from one of its masters. */
export interface DomainSlaveZonesTable {
  domain_id: number;
  /** The transferred SOA's serial (null before the first transfer). */
  serial: number | null;
  /** JSON: the transferred records (ZoneRecord[]), SOA first. */
  records: string | null;
  /** When the copy was last transferred. */
  transferred: string | null;
  /** Epoch ms of the last successful check of the masters' serial. */
  checked_ms: number | null;
  /** The last failure to reach or transfer from the masters ('' when the last try worked). */
  error: string;
}

export interface DomainTables {
  domains: DomainsTable;
  domain_records: DomainRecordsTable;
  domain_slave_zones: DomainSlaveZonesTable;
}
