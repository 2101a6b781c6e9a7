import ipaddr from 'ipaddr.js';
import { ConfigError } from './config-error.js';
import type { RawEnv } from './env.js';

/** The authoritative DNS server of the domains area and how it reaches other name servers. */
export interface DnsConfig {
  /** STRATUS_DNS_HOST: the address it listens on (default: HOST). */
  readonly host: string;
  /** STRATUS_DNS_PORT: UDP and TCP port; unset, no DNS server runs (0: any free port). */
  readonly port: number | undefined;
  /**
   * STRATUS_DNS_NAMESERVERS: the names in every zone's NS records and SOA (first: mname);
   * default `ns1.compute.com`…`ns5.compute.com`, with STRATUS_PRODUCT_WORD's word for `compute`.
   */
  readonly nameservers: readonly string[];
  /** STRATUS_DNS_TRANSFER_PORT: the port of masters and remote name servers (imports, slaves). */
  readonly transferPort: number;
  /** STRATUS_DNS_TRANSFER_NETWORKS: CIDRs those may be in (undefined: any address). */
  readonly transferNetworks: readonly string[] | undefined;
}

/** `ns1.<word>.com` … `ns5.<word>.com`: the provider's name servers, in the clients' word. */
export const defaultNameservers = (word = 'compute'): string[] =>
  [1, 2, 3, 4, 5].map((n) => `ns${n}.${word}.com`);

export const DEFAULT_NAMESERVERS = defaultNameservers();

const HOST_RE = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

const set = (v: string | undefined): string | undefined =>
  v === undefined || v.trim() === '' ? undefined : v.trim();

function port(name: string, value: string | undefined, min: number): number | undefined {
  const v = set(value);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > 65535)
    throw new ConfigError(name, `must be a port number, ${min} to 65535 (got "${v}")`);
  return n;
}

function list(value: string | undefined): string[] | undefined {
  const v = set(value);
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
}

/** `word`: STRATUS_PRODUCT_WORD, the clients' word for `compute`, in the default names. */
export function dnsConfig(env: RawEnv, host: string, word?: string): DnsConfig {
  const dnsHost = set(env.STRATUS_DNS_HOST) ?? host;
  const dnsPort = port('STRATUS_DNS_PORT', env.STRATUS_DNS_PORT, 0);
  if (dnsPort !== undefined && !ipaddr.isValid(dnsHost))
    throw new ConfigError('STRATUS_DNS_HOST', `must be an IP address (got "${dnsHost}")`);
  const nameservers = list(env.STRATUS_DNS_NAMESERVERS) ?? defaultNameservers(word);
  if (nameservers.length === 0 || nameservers.some((n) => !HOST_RE.test(n.replace(/\.$/, ''))))
    throw new ConfigError(
      'STRATUS_DNS_NAMESERVERS',
      'must be a comma-separated list of host names',
    );
  const networks = list(env.STRATUS_DNS_TRANSFER_NETWORKS);
  for (const c of networks ?? []) {
    if (!ipaddr.isValidCIDR(c))
      throw new ConfigError(
        'STRATUS_DNS_TRANSFER_NETWORKS',
        `must be a comma-separated list of CIDRs (got "${c}")`,
      );
  }
  return {
    host: dnsHost,
    port: dnsPort,
    nameservers: nameservers.map((n) => n.replace(/\.$/, '').toLowerCase()),
    transferPort: port('STRATUS_DNS_TRANSFER_PORT', env.STRATUS_DNS_TRANSFER_PORT, 1) ?? 53,
    transferNetworks: networks,
  };
}
