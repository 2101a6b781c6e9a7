/** The only reader of process.env: raw strings, no defaults, no validation. */
export interface RawEnv {
  HOST?: string;
  PORT?: string;
  DATABASE_URL?: string;
  STRATUS_DATA_DIR?: string;
  STRATUS_TIMING?: string;
  STRATUS_ADMIN_TOKEN?: string;
  STRATUS_OPERATOR_TOKEN?: string;
  STRATUS_SEED?: string;
  STRATUS_RATE_LIMITS?: string;
  STRATUS_WORKER?: string;
  STRATUS_BODY_LIMIT?: string;
  STRATUS_IP_POOLS?: string;
  STRATUS_FEED_CACHE_MB?: string;
  STRATUS_RDNS_RESOLVER?: string;
  LOG_LEVEL?: string;
  STRATUS_ENCRYPTION_KEY?: string;
  STRATUS_S3_ENDPOINT?: string;
}

export function readEnv(source: NodeJS.ProcessEnv = process.env): RawEnv {
  return {
    HOST: source.HOST,
    PORT: source.PORT,
    DATABASE_URL: source.DATABASE_URL,
    STRATUS_DATA_DIR: source.STRATUS_DATA_DIR,
    STRATUS_TIMING: source.STRATUS_TIMING,
    STRATUS_ADMIN_TOKEN: source.STRATUS_ADMIN_TOKEN,
    STRATUS_OPERATOR_TOKEN: source.STRATUS_OPERATOR_TOKEN,
    STRATUS_SEED: source.STRATUS_SEED,
    STRATUS_RATE_LIMITS: source.STRATUS_RATE_LIMITS,
    STRATUS_WORKER: source.STRATUS_WORKER,
    STRATUS_BODY_LIMIT: source.STRATUS_BODY_LIMIT,
    STRATUS_IP_POOLS: source.STRATUS_IP_POOLS,
    STRATUS_FEED_CACHE_MB: source.STRATUS_FEED_CACHE_MB,
    STRATUS_RDNS_RESOLVER: source.STRATUS_RDNS_RESOLVER,
    LOG_LEVEL: source.LOG_LEVEL,
    STRATUS_ENCRYPTION_KEY: source.STRATUS_ENCRYPTION_KEY,
    STRATUS_S3_ENDPOINT: source.STRATUS_S3_ENDPOINT,
  };
}
