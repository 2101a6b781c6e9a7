import type { SoaData, ZoneRecord } from './zone.js';

const quote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const fqdn = (s: string): string => (s === '.' || s === '' ? '.' : `${s.replace(/\.$/, '')}.`);

/** One record's data in zone-file (RFC 1035 master file) form. */
function rdata(r: ZoneRecord): string {
  const d = r.data as never;
  switch (r.type) {
    case 'SOA': {
      const s = r.data as SoaData;
      return `${fqdn(s.mname)} ${fqdn(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`;
    }
    case 'NS':
    case 'CNAME':
    case 'PTR':
      return fqdn(d);
    case 'MX': {
      const m = r.data as { preference: number; exchange: string };
      return `${m.preference} ${fqdn(m.exchange)}`;
    }
    case 'SRV': {
      const s = r.data as { priority: number; weight: number; port: number; target: string };
      return `${s.priority} ${s.weight} ${s.port} ${fqdn(s.target)}`;
    }
    case 'TXT':
      return (r.data as string[]).map(quote).join(' ');
    case 'CAA': {
      const c = r.data as { flags: number; tag: string; value: string };
      return `${c.flags} ${c.tag} ${quote(c.value)}`;
    }
    default:
      return String(d);
  }
}

/**
 * The lines of a zone file for a zone's records (SOA first), in the layout the reference shows:
 * a comment naming the domain and its id, `$TTL`, then `@` for the apex and relative names.
 */
export function zoneFileLines(
  domain: string,
  id: number,
  ttl: number,
  records: readonly ZoneRecord[],
): string[] {
  const apex = domain.replace(/\.$/, '').toLowerCase();
  const owner = (name: string): string => {
    const n = name.toLowerCase();
    if (n === apex) return '@';
    return n.endsWith(`.${apex}`) ? name.slice(0, name.length - apex.length - 1) : fqdn(name);
  };
  const lines = [`; ${domain} [${id}]`, `$TTL ${ttl}`];
  for (const r of records) {
    const t = r.ttl === ttl ? '' : ` ${r.ttl}`;
    if (r.type === 'SOA') lines.push(`${owner(r.name)}${t}  IN  SOA  ${rdata(r)}`);
    else lines.push(`${owner(r.name)}${t}    ${r.type}  ${rdata(r)}`);
  }
  return lines;
}
