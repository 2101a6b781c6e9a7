import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, envToConfig } from './config.js';
import { type RawEnv, readEnv } from './env.js';

/** The error envToConfig throws for env, or undefined. */
function failure(env: RawEnv): ConfigError | undefined {
  try {
    envToConfig(env);
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
}

describe('envToConfig', () => {
  it('envToConfig: applies every default to an empty environment', () => {
    const c = envToConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('./data'),
      databaseUrl: `sqlite:${path.join(path.resolve('./data'), 'stratus.db')}`,
      dialect: 'sqlite',
      timing: 'fast',
      adminToken: undefined,
      rateLimits: true,
      inProcessWorker: true,
      bodyLimit: 1_048_576,
      feedCacheMb: 16,
      logLevel: 'info',
    });
  });

  it('envToConfig: empty strings count as unset', () => {
    const c = envToConfig({
      HOST: '',
      PORT: '',
      DATABASE_URL: '',
      STRATUS_DATA_DIR: '',
      STRATUS_TIMING: '',
      STRATUS_ADMIN_TOKEN: '',
      STRATUS_RATE_LIMITS: '',
      STRATUS_WORKER: '',
      STRATUS_BODY_LIMIT: '',
      STRATUS_FEED_CACHE_MB: '',
      LOG_LEVEL: '',
    });
    expect(c).toEqual(envToConfig({}));
  });

  it('envToConfig: returns a frozen config', () => {
    expect(Object.isFrozen(envToConfig({}))).toBe(true);
  });

  it('envToConfig: HOST is taken as given, trimmed', () => {
    expect(envToConfig({ HOST: ' 0.0.0.0 ' }).host).toBe('0.0.0.0');
    expect(envToConfig({ HOST: '::1' }).host).toBe('::1');
  });

  it('envToConfig: PORT accepts 0..65535', () => {
    expect(envToConfig({ PORT: '0' }).port).toBe(0);
    expect(envToConfig({ PORT: '65535' }).port).toBe(65535);
    expect(envToConfig({ PORT: '3000' }).port).toBe(3000);
  });

  it('envToConfig: a bad PORT throws a ConfigError naming PORT', () => {
    for (const PORT of ['abc', '-1', '65536', '80.5', '1e3', ' 80']) {
      const err = failure({ PORT });
      expect(err, PORT).toBeInstanceOf(ConfigError);
      expect(err?.variable).toBe('PORT');
      expect(err?.message).toMatch(/^PORT: /);
    }
  });

  it('envToConfig: STRATUS_PRODUCT_WORD is a lowercase word; compute or empty means off', () => {
    expect(envToConfig({ STRATUS_PRODUCT_WORD: 'acme' }).productWord).toBe('acme');
    expect(envToConfig({ STRATUS_PRODUCT_WORD: 'node2' }).productWord).toBe('node2');
    expect(envToConfig({ STRATUS_PRODUCT_WORD: 'compute' }).productWord).toBeUndefined();
    expect(envToConfig({}).productWord).toBeUndefined();
    for (const STRATUS_PRODUCT_WORD of ['Acme', '2x', 'a', 'ac-me', 'a b', 'x'.repeat(33)]) {
      const err = failure({ STRATUS_PRODUCT_WORD });
      expect(err, STRATUS_PRODUCT_WORD).toBeInstanceOf(ConfigError);
      expect(err?.variable).toBe('STRATUS_PRODUCT_WORD');
    }
  });

  it('envToConfig: the default name servers use STRATUS_PRODUCT_WORD; STRATUS_DNS_NAMESERVERS wins', () => {
    expect(envToConfig({}).dns.nameservers[0]).toBe('ns1.compute.com');
    const worded = envToConfig({ STRATUS_PRODUCT_WORD: 'acme' }).dns.nameservers;
    expect(worded).toEqual([1, 2, 3, 4, 5].map((n) => `ns${n}.acme.com`));
    const own = envToConfig({
      STRATUS_PRODUCT_WORD: 'acme',
      STRATUS_DNS_NAMESERVERS: 'a.example.net',
    });
    expect(own.dns.nameservers).toEqual(['a.example.net']);
  });

  it('envToConfig: STRATUS_DATA_DIR places the default SQLite file', () => {
    const c = envToConfig({ STRATUS_DATA_DIR: '/tmp/stratus-x' });
    expect(c.dataDir).toBe('/tmp/stratus-x');
    expect(c.databaseUrl).toBe('sqlite:/tmp/stratus-x/stratus.db');
    expect(c.dialect).toBe('sqlite');
  });

  it('envToConfig: DATABASE_URL selects the engine', () => {
    expect(envToConfig({ DATABASE_URL: 'sqlite::memory:' })).toMatchObject({
      databaseUrl: 'sqlite::memory:',
      dialect: 'sqlite',
    });
    expect(envToConfig({ DATABASE_URL: 'sqlite:/var/db/s.db' }).dialect).toBe('sqlite');
    for (const url of ['postgres://u:p@localhost:5432/db', 'postgresql://localhost/db']) {
      expect(envToConfig({ DATABASE_URL: url })).toMatchObject({
        databaseUrl: url,
        dialect: 'postgres',
      });
    }
  });

  it('envToConfig: DATABASE_URL wins over STRATUS_DATA_DIR', () => {
    const c = envToConfig({ DATABASE_URL: 'sqlite::memory:', STRATUS_DATA_DIR: '/tmp/elsewhere' });
    expect(c.databaseUrl).toBe('sqlite::memory:');
  });

  it('envToConfig: a bad DATABASE_URL throws a ConfigError naming DATABASE_URL', () => {
    for (const DATABASE_URL of ['mysql://x', 'sqlite:', 'postgres://[oops', 'file.db']) {
      const err = failure({ DATABASE_URL });
      expect(err, DATABASE_URL).toBeInstanceOf(ConfigError);
      expect(err?.variable).toBe('DATABASE_URL');
      expect(err?.message).toMatch(/^DATABASE_URL: /);
    }
  });

  it('envToConfig: STRATUS_TIMING accepts instant, fast and realistic', () => {
    for (const t of ['instant', 'fast', 'realistic'] as const)
      expect(envToConfig({ STRATUS_TIMING: t }).timing).toBe(t);
  });

  it('envToConfig: a bad STRATUS_TIMING throws a ConfigError naming it', () => {
    const err = failure({ STRATUS_TIMING: 'slow' });
    expect(err?.variable).toBe('STRATUS_TIMING');
    expect(err?.message).toBe(
      'STRATUS_TIMING: must be one of instant, fast, realistic (got "slow")',
    );
  });

  it('envToConfig: STRATUS_RATE_LIMITS and STRATUS_WORKER take on/off words', () => {
    for (const v of ['on', 'ON', 'true', '1', 'yes']) {
      expect(envToConfig({ STRATUS_RATE_LIMITS: v }).rateLimits, v).toBe(true);
      expect(envToConfig({ STRATUS_WORKER: v }).inProcessWorker, v).toBe(true);
    }
    for (const v of ['off', 'Off', 'false', '0', 'no']) {
      expect(envToConfig({ STRATUS_RATE_LIMITS: v }).rateLimits, v).toBe(false);
      expect(envToConfig({ STRATUS_WORKER: v }).inProcessWorker, v).toBe(false);
    }
  });

  it('envToConfig: a bad on/off value throws a ConfigError naming the variable', () => {
    const rl = failure({ STRATUS_RATE_LIMITS: 'maybe' });
    expect(rl?.variable).toBe('STRATUS_RATE_LIMITS');
    expect(rl?.message).toBe('STRATUS_RATE_LIMITS: must be "on" or "off" (got "maybe")');
    expect(failure({ STRATUS_WORKER: 'sometimes' })?.variable).toBe('STRATUS_WORKER');
  });

  it('envToConfig: STRATUS_BODY_LIMIT accepts 1024 bytes to 64 MiB', () => {
    expect(envToConfig({ STRATUS_BODY_LIMIT: '1024' }).bodyLimit).toBe(1024);
    expect(envToConfig({ STRATUS_BODY_LIMIT: String(64 * 1024 * 1024) }).bodyLimit).toBe(
      64 * 1024 * 1024,
    );
    for (const v of ['1023', String(64 * 1024 * 1024 + 1), '1MB', '-5']) {
      expect(failure({ STRATUS_BODY_LIMIT: v })?.variable, v).toBe('STRATUS_BODY_LIMIT');
    }
  });

  it('envToConfig: STRATUS_FEED_CACHE_MB accepts 0 (off) to 4096 MiB, default 16', () => {
    expect(envToConfig({}).feedCacheMb).toBe(16);
    expect(envToConfig({ STRATUS_FEED_CACHE_MB: '0' }).feedCacheMb).toBe(0);
    expect(envToConfig({ STRATUS_FEED_CACHE_MB: '4096' }).feedCacheMb).toBe(4096);
    for (const v of ['4097', '-1', '1.5', 'lots']) {
      expect(failure({ STRATUS_FEED_CACHE_MB: v })?.variable, v).toBe('STRATUS_FEED_CACHE_MB');
    }
  });

  it('envToConfig: STRATUS_PG_STATEMENTS accepts 0 (none) to 10000 named statements, default 500', () => {
    expect(envToConfig({}).pgStatements).toBe(500);
    expect(envToConfig({ STRATUS_PG_STATEMENTS: '0' }).pgStatements).toBe(0);
    expect(envToConfig({ STRATUS_PG_STATEMENTS: '10000' }).pgStatements).toBe(10_000);
    for (const v of ['10001', '-1', '2.5', 'off']) {
      expect(failure({ STRATUS_PG_STATEMENTS: v })?.variable, v).toBe('STRATUS_PG_STATEMENTS');
    }
  });

  it('envToConfig: STRATUS_MANAGED_CHECKS is on by default, on/off otherwise', () => {
    expect(envToConfig({}).managedChecks).toBe(true);
    expect(envToConfig({ STRATUS_MANAGED_CHECKS: 'off' }).managedChecks).toBe(false);
    expect(envToConfig({ STRATUS_MANAGED_CHECKS: 'on' }).managedChecks).toBe(true);
    expect(failure({ STRATUS_MANAGED_CHECKS: 'sometimes' })?.variable).toBe(
      'STRATUS_MANAGED_CHECKS',
    );
  });

  it('envToConfig: LOG_LEVEL accepts the pino levels and silent', () => {
    for (const l of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const)
      expect(envToConfig({ LOG_LEVEL: l }).logLevel).toBe(l);
  });

  it('envToConfig: a bad LOG_LEVEL throws a ConfigError naming LOG_LEVEL', () => {
    const err = failure({ LOG_LEVEL: 'loud' });
    expect(err?.variable).toBe('LOG_LEVEL');
    expect(err?.message).toMatch(/^LOG_LEVEL: must be one of fatal, error, warn, info/);
  });

  it('envToConfig: LOG_FORMAT is auto, json or pretty (auto by default)', () => {
    expect(envToConfig({}).logFormat).toBe('auto');
    for (const f of ['auto', 'json', 'pretty'] as const) {
      expect(envToConfig({ LOG_FORMAT: f }).logFormat).toBe(f);
    }
    expect(failure({ LOG_FORMAT: 'xml' })?.message).toBe(
      'LOG_FORMAT: must be one of auto, json, pretty (got "xml")',
    );
  });

  it('envToConfig: STRATUS_WORKER_TIMEOUT is 10 to 86400 seconds, default 30', () => {
    expect(envToConfig({}).workerTimeoutSeconds).toBe(30);
    expect(envToConfig({ STRATUS_WORKER_TIMEOUT: '90' }).workerTimeoutSeconds).toBe(90);
    expect(failure({ STRATUS_WORKER_TIMEOUT: '5' })?.variable).toBe('STRATUS_WORKER_TIMEOUT');
    expect(failure({ STRATUS_WORKER_TIMEOUT: 'soon' })?.variable).toBe('STRATUS_WORKER_TIMEOUT');
  });

  it('envToConfig: STRATUS_INIT_DIR is resolved to an absolute path', () => {
    expect(envToConfig({}).initDir).toBeUndefined();
    expect(envToConfig({ STRATUS_INIT_DIR: 'init' }).initDir).toBe(path.resolve('init'));
  });

  it('envToConfig: STRATUS_ADMIN_TOKEN takes 16 to 128 of A-Za-z0-9_-.', () => {
    const ok = ['a'.repeat(16), 'A-b_c.d'.repeat(3), 'x'.repeat(128)];
    for (const v of ok) expect(envToConfig({ STRATUS_ADMIN_TOKEN: v }).adminToken).toBe(v);
  });

  it('envToConfig: a bad STRATUS_ADMIN_TOKEN throws a ConfigError naming it', () => {
    for (const v of [
      'short',
      'a'.repeat(15),
      'x'.repeat(129),
      'has spaces in it!!',
      'ünïcödé-token-xx',
    ]) {
      const err = failure({ STRATUS_ADMIN_TOKEN: v });
      expect(err?.variable, v).toBe('STRATUS_ADMIN_TOKEN');
      // The value itself is a secret: it is never echoed.
      expect(err?.message).not.toContain(v);
    }
  });

  it('ConfigError: is an Error with a message naming the variable', () => {
    const err = new ConfigError('PORT', 'must be an integer');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ConfigError');
    expect(err.message).toBe('PORT: must be an integer');
  });
});

describe('readEnv', () => {
  it('readEnv: copies only the known variables, without defaults', () => {
    const env = readEnv({
      PORT: '1234',
      LOG_LEVEL: 'debug',
      UNRELATED: 'x',
      STRATUS_ADMIN_TOKEN: 'abcdefghijklmnop',
    });
    expect(env.PORT).toBe('1234');
    expect(env.LOG_LEVEL).toBe('debug');
    expect(env.STRATUS_ADMIN_TOKEN).toBe('abcdefghijklmnop');
    expect(env.HOST).toBeUndefined();
    expect('UNRELATED' in env).toBe(false);
    expect(envToConfig(env)).toMatchObject({ port: 1234, logLevel: 'debug' });
  });
});
