import path from 'node:path';
import { type BlobConfig, blobConfig } from './blob-config.js';
import { ConfigError } from './config-error.js';
import { type DnsConfig, dnsConfig } from './dns-config.js';
import type { RawEnv } from './env.js';
import { type MachinesConfig, machinesConfig } from './machines-config.js';

export { ConfigError };

const PRODUCT_WORD_RE = /^[a-z][a-z0-9]{1,31}$/;

function productWordOf(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '' || raw === 'compute') return undefined;
  if (!PRODUCT_WORD_RE.test(raw)) {
    throw new ConfigError(
      'STRATUS_PRODUCT_WORD',
      'must be 2 to 32 lowercase letters or digits, starting with a letter',
    );
  }
  return raw;
}

export type TimingProfile = 'instant' | 'fast' | 'realistic';
export type Dialect = 'sqlite' | 'postgres';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `auto`: readable lines (pino-pretty) when stdout is a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  readonly dialect: Dialect;
  readonly dataDir: string;
  readonly timing: TimingProfile;
  readonly adminToken: string | undefined;
  /** The operator token of `/_stratus/*` controls; random (stored hashed) when unset. */
  readonly operatorToken: string | undefined;
  /** A JSON file of accounts, users, tokens and entities written on the first start. */
  readonly seedFile: string | undefined;
  /** STRATUS_INIT_DIR: init hooks (request files and scripts) applied after the seed file. */
  readonly initDir: string | undefined;
  /**
   * STRATUS_PRODUCT_WORD: another word clients use for `compute` (paths, fields, scopes, event
   * actions and entity types, the OpenAPI document), translated at the HTTP edge.
   */
  readonly productWord: string | undefined;
  readonly rateLimits: boolean;
  /** Run the job worker inside the API process. */
  readonly inProcessWorker: boolean;
  /**
   * STRATUS_WORKER_TIMEOUT: seconds without any job worker's heartbeat, while jobs wait, after
   * which `/_stratus/ready` answers 503.
   */
  readonly workerTimeoutSeconds: number;
  readonly bodyLimit: number;
  /** A JSON file of per-region address pools replacing the defaults. */
  readonly ipPoolsFile: string | undefined;
  /** Memory for rendered pages of the events feed, in MiB; 0 turns the cache off. */
  readonly feedCacheMb: number;
  /** PostgreSQL: named statements each connection keeps (0: none, every statement parsed anew). */
  readonly pgStatements: number;
  /** The DNS server reverse DNS updates check forward records against (none: not checked). */
  readonly rdnsResolver: string | undefined;
  /** STRATUS_RESERVED_IPV4_LIMIT: reserved IPv4 addresses an account may hold. */
  readonly reservedIpv4Limit: number;
  /**
   * STRATUS_MANAGED_CHECKS: Managed services' checks connect to their addresses (HTTP, TCP) from
   * the worker; off, every check passes without a connection.
   */
  readonly managedChecks: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** STRATUS_ENCRYPTION_KEY: seals secrets that must be read back (object storage). */
  readonly encryptionKey: string | undefined;
  /** STRATUS_S3_ENDPOINT: public base URL of the S3 data plane (default: the public URL). */
  readonly s3Endpoint: string | undefined;
  /**
   * STRATUS_PUBLIC_URL: the base URL clients reach this server at (a proxy or DNS name in
   * front). Absolute URLs the server hands out (image `upload_to`, the OAuth issuer, the
   * clusters' `domain`) use it instead of the request's Host header.
   */
  readonly publicUrl: string | undefined;
  /**
   * STRATUS_S3_VIRTUAL_HOSTS: bucket records announce `<bucket>.<domain>` (the operator's DNS
   * resolves every such name to the server). Requests in that form are served either way.
   */
  readonly s3VirtualHosts: boolean;
  /**
   * STRATUS_S3_PORT: a second listener (on HOST) that serves the S3 data plane at its root
   * (`/<bucket>/<key>`), for clients that cannot keep a path prefix; unset: none.
   */
  readonly s3Port: number | undefined;
  /** STRATUS_BLOB_*: where bytes are kept (local disk or an S3-compatible cluster). */
  readonly blob: BlobConfig;
  /** STRATUS_COMPUTE_DRIVER and STRATUS_VM_*: what runs compute instances. */
  readonly machines: MachinesConfig;
  /** STRATUS_CONSOLE_DIR: another build of the web console (default: the package's dist/console). */
  readonly consoleDir: string | undefined;
  /** STRATUS_DNS_*: the authoritative DNS server of the domains area. */
  readonly dns: DnsConfig;
}

const TIMINGS: readonly TimingProfile[] = ['instant', 'fast', 'realistic'];
const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];
const ADMIN_TOKEN_RE = /^[A-Za-z0-9_\-.]{16,128}$/;

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
}

function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new ConfigError(name, `must be "on" or "off" (got "${value}")`);
}

function integer(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(name, `must be an integer (got "${value}")`);
  const n = Number(value);
  if (n < min || n > max)
    throw new ConfigError(name, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

/** Applies defaults and validates; returns a frozen Config. */
export function envToConfig(env: RawEnv): Config {
  const host = env.HOST && env.HOST.trim() !== '' ? env.HOST.trim() : '127.0.0.1';
  const port = integer('PORT', env.PORT, 8080, 0, 65535);
  const dataDir = path.resolve(
    env.STRATUS_DATA_DIR && env.STRATUS_DATA_DIR !== '' ? env.STRATUS_DATA_DIR : './data',
  );
  let databaseUrl = env.DATABASE_URL ?? '';
  let dialect: Dialect;
  if (databaseUrl === '') {
    databaseUrl = `sqlite:${path.join(dataDir, 'stratus.db')}`;
    dialect = 'sqlite';
  } else if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    try {
      new URL(databaseUrl);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    dialect = 'postgres';
  } else if (databaseUrl.startsWith('sqlite:')) {
    if (databaseUrl.length <= 'sqlite:'.length)
      throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path or :memory:');
    dialect = 'sqlite';
  } else {
    throw new ConfigError('DATABASE_URL', 'must start with postgres://, postgresql:// or sqlite:');
  }
  const adminToken =
    env.STRATUS_ADMIN_TOKEN && env.STRATUS_ADMIN_TOKEN !== '' ? env.STRATUS_ADMIN_TOKEN : undefined;
  if (adminToken !== undefined && !ADMIN_TOKEN_RE.test(adminToken)) {
    throw new ConfigError(
      'STRATUS_ADMIN_TOKEN',
      'must be 16 to 128 characters of letters, digits, "_", "-" or "."',
    );
  }
  const operatorToken =
    env.STRATUS_OPERATOR_TOKEN && env.STRATUS_OPERATOR_TOKEN !== ''
      ? env.STRATUS_OPERATOR_TOKEN
      : undefined;
  if (operatorToken !== undefined && !ADMIN_TOKEN_RE.test(operatorToken)) {
    throw new ConfigError(
      'STRATUS_OPERATOR_TOKEN',
      'must be 16 to 128 characters of letters, digits, "_", "-" or "."',
    );
  }
  return Object.freeze({
    host,
    port,
    databaseUrl,
    dialect,
    dataDir,
    timing: oneOf('STRATUS_TIMING', env.STRATUS_TIMING, TIMINGS, 'fast'),
    adminToken,
    operatorToken,
    seedFile:
      env.STRATUS_SEED && env.STRATUS_SEED !== '' ? path.resolve(env.STRATUS_SEED) : undefined,
    initDir:
      env.STRATUS_INIT_DIR && env.STRATUS_INIT_DIR !== ''
        ? path.resolve(env.STRATUS_INIT_DIR)
        : undefined,
    productWord: productWordOf(env.STRATUS_PRODUCT_WORD),
    rateLimits: onOff('STRATUS_RATE_LIMITS', env.STRATUS_RATE_LIMITS, true),
    inProcessWorker: onOff('STRATUS_WORKER', env.STRATUS_WORKER, true),
    workerTimeoutSeconds: integer(
      'STRATUS_WORKER_TIMEOUT',
      env.STRATUS_WORKER_TIMEOUT,
      30,
      10,
      86_400,
    ),
    bodyLimit: integer(
      'STRATUS_BODY_LIMIT',
      env.STRATUS_BODY_LIMIT,
      1024 * 1024,
      1024,
      64 * 1024 * 1024,
    ),
    ipPoolsFile:
      env.STRATUS_IP_POOLS && env.STRATUS_IP_POOLS !== ''
        ? path.resolve(env.STRATUS_IP_POOLS)
        : undefined,
    feedCacheMb: integer('STRATUS_FEED_CACHE_MB', env.STRATUS_FEED_CACHE_MB, 16, 0, 4096),
    pgStatements: integer('STRATUS_PG_STATEMENTS', env.STRATUS_PG_STATEMENTS, 500, 0, 10_000),
    rdnsResolver: resolverOf(env.STRATUS_RDNS_RESOLVER),
    reservedIpv4Limit: integer(
      'STRATUS_RESERVED_IPV4_LIMIT',
      env.STRATUS_RESERVED_IPV4_LIMIT,
      10,
      0,
      100_000,
    ),
    managedChecks: onOff('STRATUS_MANAGED_CHECKS', env.STRATUS_MANAGED_CHECKS, true),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    logFormat: oneOf('LOG_FORMAT', env.LOG_FORMAT, LOG_FORMATS, 'auto'),
    encryptionKey:
      env.STRATUS_ENCRYPTION_KEY && env.STRATUS_ENCRYPTION_KEY !== ''
        ? env.STRATUS_ENCRYPTION_KEY
        : undefined,
    s3Endpoint: httpUrl('STRATUS_S3_ENDPOINT', env.STRATUS_S3_ENDPOINT),
    publicUrl: httpUrl('STRATUS_PUBLIC_URL', env.STRATUS_PUBLIC_URL),
    s3VirtualHosts: onOff('STRATUS_S3_VIRTUAL_HOSTS', env.STRATUS_S3_VIRTUAL_HOSTS, false),
    s3Port:
      env.STRATUS_S3_PORT === undefined || env.STRATUS_S3_PORT === ''
        ? undefined
        : integer('STRATUS_S3_PORT', env.STRATUS_S3_PORT, 0, 0, 65535),
    blob: blobConfig(env),
    machines: machinesConfig(env, dataDir),
    consoleDir:
      env.STRATUS_CONSOLE_DIR && env.STRATUS_CONSOLE_DIR !== ''
        ? path.resolve(env.STRATUS_CONSOLE_DIR)
        : undefined,
    dns: dnsConfig(env, host, productWordOf(env.STRATUS_PRODUCT_WORD)),
  });
}

/** `ip`, `ip:port` or `[ipv6]:port` of a DNS server; empty or unset: none. */
function resolverOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)|([0-9a-fA-F:]+))(?::(\d{1,5}))?$/.exec(value);
  const host = m?.[1] ?? m?.[2] ?? m?.[3];
  const port = m?.[4] === undefined ? 53 : Number(m[4]);
  const isV4 = host !== undefined && /^\d+\.\d+\.\d+\.\d+$/.test(host);
  const v6Port = m?.[3] !== undefined && m[4] !== undefined;
  if (!m || !host || v6Port || port < 1 || port > 65535 || (!isV4 && !host.includes(':')))
    throw new ConfigError(
      'STRATUS_RDNS_RESOLVER',
      'must be the address of a DNS server: an IP, IP:port or [IPv6]:port',
    );
  return value;
}

/** An http(s) base URL without query, fragment or credentials; no trailing slash. */
function httpUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL (got "${value}")`);
  }
  if (
    !['http:', 'https:'].includes(u.protocol) ||
    u.search !== '' ||
    u.hash !== '' ||
    u.username !== '' ||
    u.password !== ''
  ) {
    throw new ConfigError(name, `must be an http(s) URL (got "${value}")`);
  }
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}
