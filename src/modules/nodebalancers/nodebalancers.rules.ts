import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import type { FieldErrors } from '../../errors/errors.js';
import { isIpv4 } from '../../lib/ip.js';
import type { ConfigInput } from './nodebalancers.schemas.js';

/** Every settable field of a config, as stored after defaults (reference defaults). */
export interface ConfigValues {
  port: number;
  protocol: string;
  algorithm: string;
  stickiness: string;
  check: string;
  check_interval: number;
  check_timeout: number;
  check_attempts: number;
  check_path: string;
  check_body: string;
  check_passive: boolean;
  proxy_protocol: string;
  cipher_suite: string;
  udp_check_port: number;
}

export const CONFIG_DEFAULTS: ConfigValues = {
  port: 80,
  protocol: 'http',
  algorithm: 'roundrobin',
  stickiness: 'none',
  check: 'none',
  check_interval: 31,
  check_timeout: 30,
  check_attempts: 3,
  check_path: '',
  check_body: '',
  check_passive: true,
  proxy_protocol: 'none',
  cipher_suite: 'recommended',
  udp_check_port: 80,
};

/** The read-only UDP session timeout (seconds) the real service reports for every config. */
export const UDP_SESSION_TIMEOUT = 16;

const UDP_ONLY_STICKINESS = ['session', 'source_ip'];
const TCP_ONLY_STICKINESS = ['table', 'http_cookie'];

export const NODE_WEIGHT_DEFAULT = 50;
export const NODE_MODE_DEFAULT = 'accept';

/** What a request gives over what the config had (or the defaults). */
export function mergeConfig(base: ConfigValues, b: ConfigInput): ConfigValues {
  const out = { ...base };
  for (const k of Object.keys(CONFIG_DEFAULTS) as (keyof ConfigValues)[]) {
    const v = b[k];
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  // Switching between udp and the other protocols: the fields the request leaves out that the
  // new protocol does not take fall back to its defaults (udp: `session` stickiness, no
  // passive checks; http/https/tcp: `none` stickiness).
  if (out.protocol === 'udp') {
    if (b.stickiness === undefined && !UDP_ONLY_STICKINESS.includes(out.stickiness))
      out.stickiness = 'session';
    if (b.check_passive === undefined) out.check_passive = false;
    if (b.algorithm === undefined && out.algorithm === 'source') out.algorithm = 'roundrobin';
  } else {
    if (b.stickiness === undefined && UDP_ONLY_STICKINESS.includes(out.stickiness))
      out.stickiness = 'none';
    if (b.algorithm === undefined && out.algorithm === 'ring_hash') out.algorithm = 'roundrobin';
    if (b.check_passive === undefined && base.protocol === 'udp')
      out.check_passive = CONFIG_DEFAULTS.check_passive;
  }
  return out;
}

/** The rules between fields of a config (reference descriptions); `at` prefixes field names. */
export function configProblems(fe: FieldErrors, c: ConfigValues, at = ''): void {
  if (c.check_interval <= c.check_timeout)
    fe.add(`${at}check_interval`, 'check_interval must be greater than check_timeout');
  if (c.protocol === 'udp') {
    if (c.algorithm === 'source')
      fe.add(`${at}algorithm`, 'The udp protocol supports roundrobin, leastconn and ring_hash');
    if (TCP_ONLY_STICKINESS.includes(c.stickiness))
      fe.add(`${at}stickiness`, 'The udp protocol supports none, session and source_ip stickiness');
    if (c.check_passive)
      fe.add(`${at}check_passive`, 'Passive checks are not supported by the udp protocol');
  } else {
    if (c.algorithm === 'ring_hash')
      fe.add(`${at}algorithm`, 'ring_hash is supported by the udp protocol only');
    if (UDP_ONLY_STICKINESS.includes(c.stickiness))
      fe.add(`${at}stickiness`, `${c.stickiness} stickiness is supported by the udp protocol only`);
  }
  if (c.proxy_protocol !== 'none' && c.protocol !== 'tcp')
    fe.add(`${at}proxy_protocol`, 'proxy_protocol requires the tcp protocol');
  if (c.stickiness === 'http_cookie' && c.protocol === 'tcp')
    fe.add(`${at}stickiness`, 'http_cookie stickiness requires the http or https protocol');
  if ((c.check === 'http' || c.check === 'http_body') && c.check_path === '')
    fe.add(`${at}check_path`, 'check_path is required for http checks');
  if (c.check === 'http_body' && c.check_body === '')
    fe.add(`${at}check_body`, 'check_body is required for http_body checks');
}

/** `ip:port` of a node; the address must be an IPv4 address, the port 1..65535. */
export function parseNodeAddress(address: string): { ip: string; port: number } | undefined {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/.exec(address);
  if (!m) return undefined;
  const ip = m[1] as string;
  const port = Number(m[2]);
  if (!isIpv4(ip) || port < 1 || port > 65535) return undefined;
  return { ip, port };
}

export interface TlsFacts {
  commonname: string;
  fingerprint: string;
  keyHash: string;
}

/**
 * Checks a PEM certificate (chain) and its private key as real X.509: the certificate parses,
 * the key parses and matches it. Returns what is kept: the common name, the SHA-1 fingerprint
 * and a SHA-256 of the key (the key itself is never stored: it is never shown again).
 */
export function checkTls(
  fe: FieldErrors,
  cert: string,
  key: string,
  at = '',
): TlsFacts | undefined {
  let x509: X509Certificate | undefined;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    fe.add(`${at}ssl_cert`, 'ssl_cert must be a PEM-encoded X.509 certificate');
  }
  let pkey: ReturnType<typeof createPrivateKey> | undefined;
  try {
    pkey = createPrivateKey(key);
  } catch {
    fe.add(`${at}ssl_key`, 'ssl_key must be a PEM-encoded private key (without a passphrase)');
  }
  if (!x509 || !pkey) return undefined;
  if (!x509.checkPrivateKey(pkey)) {
    fe.add(`${at}ssl_key`, 'ssl_key does not match the certificate');
    return undefined;
  }
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(x509.subject)?.[1] ?? '';
  return {
    commonname: cn,
    fingerprint: x509.fingerprint,
    keyHash: createHash('sha256').update(key.trim()).digest('hex'),
  };
}
