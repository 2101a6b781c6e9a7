import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { type StratusApp, buildApp } from '../../src/app.js';
import { envToConfig, type TimingProfile } from '../../src/config/config.js';
import { type AppContext, createContext } from '../../src/context.js';
import type { EntityType } from '../../src/entities/entities.js';
import type { AnyArea } from '../../src/platform/area.js';
import type { ComputeDriver } from '../../src/machines/driver.js';
import { FakeClock } from '../../src/lib/clock.js';
import { type BootstrapResult, bootstrapAccount } from '../../src/modules/identity/bootstrap.js';
import { MemoryBlobStore } from '../../src/storage/memory.js';
import type { BlobStore } from '../../src/storage/index.js';
import { createDatabase, dropDatabase } from './pg-server.js';

export const DIALECT = process.env.DB_DIALECT === 'postgres' ? 'postgres' : 'sqlite';

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** X-Filter header value (objects are JSON-encoded). */
  filter?: unknown;
}

export interface TestApp {
  app: StratusApp;
  /** The test database's URL (`sqlite::memory:` on SQLite: not shareable with a second connection). */
  url: string;
  ctx: AppContext;
  clock: FakeClock;
  /** The bootstrap account's unrestricted user and its `*` token. */
  admin: BootstrapResult;
  request<T = any>(method: string, url: string, opts?: RequestOptions): Promise<Reply<T>>;
  get<T = any>(url: string, opts?: RequestOptions): Promise<Reply<T>>;
  post<T = any>(url: string, body?: unknown, opts?: RequestOptions): Promise<Reply<T>>;
  put<T = any>(url: string, body?: unknown, opts?: RequestOptions): Promise<Reply<T>>;
  del<T = any>(url: string, opts?: RequestOptions): Promise<Reply<T>>;
  /** Runs every job to completion, moving the fake clock to each step's due time. */
  settle(maxSteps?: number): Promise<void>;
  /** Runs only the jobs due now. */
  runDue(): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  timing?: TimingProfile;
  rateLimits?: boolean;
  /** STRATUS_BODY_LIMIT in bytes (default: the configured default). */
  bodyLimit?: number;
  /** Entity types declared beside the areas' own (tests of the cross-cutting views). */
  entities?: EntityType[];
  /** Areas served after the shipped ones (tests of the area mechanism). */
  areas?: readonly AnyArea[];
  /** STRATUS_RDNS_RESOLVER (a DNS server the reverse DNS check asks). */
  rdnsResolver?: string;
  /** STRATUS_DATA_DIR (object bytes and other files); default: the configured default. */
  dataDir?: string;
  /**
   * Further environment (e.g. STRATUS_BLOB_BACKEND=s3 and its STRATUS_BLOB_S3_*). Without a
   * data directory or a blob backend, blobs are kept in memory.
   */
  env?: Record<string, string>;
  /** The compute driver (default: the simulated one). */
  machines?: ComputeDriver;
  /** Wall-clock time of heartbeats and readiness (default Date.now). */
  wallNow?: () => number;
  /** The process logger (default: silent, or TEST_LOG_LEVEL). */
  log?: Logger;
}

async function databaseUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (DIALECT === 'sqlite') return { url: 'sqlite::memory:', drop: async () => {} };
  const admin = inject('pgAdminUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = await createDatabase(admin, name, 'stratus_template');
  return { url, drop: () => dropDatabase(admin, name) };
}

/** A fresh app on a fresh database, with a fake clock and jobs run on demand. */
export async function buildTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const { url, drop } = await databaseUrl();
  const config = envToConfig({
    DATABASE_URL: url,
    STRATUS_TIMING: opts.timing ?? 'fast',
    STRATUS_RATE_LIMITS: opts.rateLimits ? 'on' : 'off',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(opts.bodyLimit !== undefined ? { STRATUS_BODY_LIMIT: String(opts.bodyLimit) } : {}),
    ...(opts.rdnsResolver !== undefined ? { STRATUS_RDNS_RESOLVER: opts.rdnsResolver } : {}),
    ...(opts.dataDir !== undefined ? { STRATUS_DATA_DIR: opts.dataDir } : {}),
    // Zone transfers (imports, slave zones) reach only this machine in tests.
    STRATUS_DNS_TRANSFER_NETWORKS: '127.0.0.0/8,::1/128',
    ...(opts.env ?? {}),
  });
  const memory = new Map<string, BlobStore>();
  const inMemory = opts.dataDir === undefined && opts.env?.STRATUS_BLOB_BACKEND === undefined;
  const clock = new FakeClock('2026-03-01T12:00:00Z');
  const ctx = await createContext(config, {
    clock,
    entities: opts.entities ?? [],
    ...(opts.areas ? { areas: opts.areas } : {}),
    ...(opts.machines ? { machines: opts.machines } : {}),
    ...(opts.wallNow ? { wallNow: opts.wallNow } : {}),
    ...(opts.log ? { log: opts.log } : {}),
    ...(inMemory
      ? {
          blobStores: (area: string) => {
            const store = memory.get(area) ?? new MemoryBlobStore();
            memory.set(area, store);
            return store;
          },
        }
      : {}),
  });
  const admin = await bootstrapAccount(ctx.db, clock, {
    email: 'owner@example.com',
    username: 'owner',
  });
  const app = await buildApp(ctx);
  await app.ready();

  const request = async (method: string, url: string, o: RequestOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    const token = o.token === undefined ? admin.token : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (o.filter !== undefined)
      headers['x-filter'] = typeof o.filter === 'string' ? o.filter : JSON.stringify(o.filter);
    let payload: string | undefined;
    if (o.body !== undefined) {
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: unknown = res.body;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      // not JSON
    }
    return { status: res.statusCode, body, headers: res.headers, text: res.body };
  };

  const runDue = () => ctx.runner.runDue();
  const settle = async (maxSteps = 10_000) => {
    for (let i = 0; i < maxSteps; i++) {
      await ctx.runner.runDue();
      const next = await ctx.runner.nextDueAt();
      if (next === undefined) return;
      if (next > clock.nowMs()) clock.set(next);
    }
    throw new Error('settle: jobs did not finish');
  };

  return {
    app,
    url,
    ctx,
    clock,
    admin,
    request,
    get: (u, o) => request('GET', u, o),
    post: (u, b, o) => request('POST', u, { ...o, body: b }),
    put: (u, b, o) => request('PUT', u, { ...o, body: b }),
    del: (u, o) => request('DELETE', u, o),
    settle,
    runDue,
    close: async () => {
      // A test has no client to drain for: connections still open (an aborted download's, a
      // keep-alive one) are cut at once rather than left to Node's header timeout (60–90 s).
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
      await ctx.runner.stop();
      await ctx.db.close();
      await drop();
    },
  };
}
