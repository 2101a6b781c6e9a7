/**
 * `stratus/testing`: a Stratus server for a test suite. `startStratus()` runs `stratus serve` in a
 * child process (the suite's fake timers, module mocks and crashes never reach it) on a free port
 * of 127.0.0.1 with an in-memory SQLite database, the `instant` timing profile and rate limits
 * off, and answers once it listens: its base URL, an admin token, the operator token and a client
 * of the emulator controls (reset, seed, clock, faults, timing). `stop()` ends it; so does the
 * end of the test process. Plain `fetch`, no dependency: it runs under vitest, jest (ESM) and
 * node's test runner alike.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StartOptions {
  /** The timing profile (default `instant`: every job's delay is zero). */
  timing?: 'instant' | 'fast' | 'realistic';
  /** DATABASE_URL (default `sqlite::memory:`; a `postgres://` URL works too). */
  databaseUrl?: string;
  /** A seed file (STRATUS_SEED): applied at the start and after every full reset. */
  seedFile?: string;
  /** An init folder (STRATUS_INIT_DIR): run after the start and after every full reset. */
  initDir?: string;
  /** More environment for the server (any setting of docs/operations.md). */
  env?: Record<string, string>;
  /** How long the start may take (default 60 s). */
  startTimeoutMs?: number;
}

/** A fault rule (the format of `PUT /_stratus/faults`, documented in `/_stratus/openapi.json`). */
export interface FaultRule {
  id?: string;
  method?: string;
  /** `*` is one segment, `**` any number; without `/v4` it matches `/v4` and `/v4beta`. */
  path?: string;
  operationId?: string;
  /** An account's euuid. */
  account?: string;
  probability?: number;
  count?: number;
  response: 'rate_limit' | 'busy' | 'error' | 'maintenance' | 'latency';
  retry_after?: number;
  entity?: string;
  status?: 500 | 502 | 503 | 504;
  message?: string;
  latency_ms?: number;
}

/** The emulator controls (`/_stratus/`), as the operator. Each rejects with the error body on a 4xx/5xx. */
export interface OperatorClient {
  /** Every account back to the first start (the admin token stays), or one account (`euuid`). */
  reset(euuid?: string): Promise<unknown>;
  /** Add accounts, users, tokens and requests now (the STRATUS_SEED format). */
  seed(document: unknown): Promise<unknown>;
  /** Stop the job clock (`manual`) or let it run (`system`). */
  setClock(mode: 'manual' | 'system'): Promise<unknown>;
  /** Move the job clock forward, running every job step due on the way. */
  advanceClock(by: { seconds: number } | { ms: number }): Promise<unknown>;
  /** Replace the fault rules (an empty list clears them). */
  setFaults(rules: FaultRule[]): Promise<unknown>;
  /** Change the timing profile or its figures. */
  setTiming(body: { profile?: string; overrides?: Record<string, number> }): Promise<unknown>;
  /** `/_stratus/health`'s JSON. */
  health(): Promise<unknown>;
  /** Any other control: `request('GET', '/_stratus/snapshot')`. */
  request(method: string, path: string, body?: unknown): Promise<unknown>;
}

export interface StratusServer {
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  /** `${url}/v4`: what an SDK's base URL is set to. */
  apiUrl: string;
  /** A personal access token of the default account's admin user (scope `*`); kept by resets. */
  adminToken: string;
  /** The operator token of the emulator controls. */
  operatorToken: string;
  operator: OperatorClient;
  /** fetch against the API with the admin token: `api('/profile')`, `api('/volumes', { method: 'POST', body })`. */
  api(path: string, init?: { method?: string; body?: unknown; token?: string }): Promise<Response>;
  /** Ends the server (SIGTERM, then SIGKILL after 10 s) and removes its data folder. */
  stop(): Promise<void>;
}

/** The error of a control that answered 4xx/5xx: its status and body. */
export class StratusControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    super(`${what} answered ${status}: ${JSON.stringify(body)}`);
    this.name = 'StratusControlError';
  }
}

const BIN = fileURLToPath(new URL('../bin/stratus.js', import.meta.url));
const running = new Set<ChildProcess>();
let exitHooked = false;

function token(prefix: string): string {
  return `${prefix}-${randomBytes(24).toString('hex')}`;
}

export async function startStratus(opts: StartOptions = {}): Promise<StratusServer> {
  const adminToken = token('admin');
  const operatorToken = token('operator');
  const dataDir = mkdtempSync(join(tmpdir(), 'stratus-testing-'));
  // The test process's own Stratus settings (a developer's shell, a CI job) are not passed on:
  // the server is the same wherever the suite runs; `opts.env` adds any.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined &&
        !/^(HOST|PORT|DATABASE_URL|STRATUS_.*|LOG_LEVEL|LOG_FORMAT)$/.test(e[0]),
    ),
  );
  const env: Record<string, string> = {
    ...inherited,
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: opts.databaseUrl ?? 'sqlite::memory:',
    STRATUS_DATA_DIR: dataDir,
    STRATUS_TIMING: opts.timing ?? 'instant',
    STRATUS_ADMIN_TOKEN: adminToken,
    STRATUS_OPERATOR_TOKEN: operatorToken,
    STRATUS_RATE_LIMITS: 'off',
    LOG_LEVEL: process.env.STRATUS_TEST_LOG_LEVEL ?? 'warn',
    LOG_FORMAT: 'json',
    ...(opts.seedFile ? { STRATUS_SEED: opts.seedFile } : {}),
    ...(opts.initDir ? { STRATUS_INIT_DIR: opts.initDir } : {}),
    ...opts.env,
  };
  // A test runner's own settings must not leak into the server (vitest sets NODE_ENV=test and
  // VITEST; a NODE_OPTIONS with a loader would slow every start).
  delete env.NODE_OPTIONS;

  const child = spawn(process.execPath, [BIN, 'serve'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  if (!exitHooked) {
    exitHooked = true;
    // A suite that ends without stop() (a crash, a forgotten afterAll) leaves no server behind.
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  child.stderr?.on('data', keep);

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('did not listen in time')),
        opts.startTimeoutMs ?? 60_000,
      );
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        keep(chunk);
        seen += chunk.toString();
        const m = /listening on (http:\/\/\S+)\/v4/.exec(seen);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`exited with code ${code}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(
      `Stratus did not start: ${(err as Error).message}\n${output.join('').slice(-4000)}`,
    );
  }
  // Drained from here on: a full pipe would stop the server.
  child.stdout?.resume();

  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${operatorToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    if (!res.ok) throw new StratusControlError(res.status, parsed, `${method} ${path}`);
    return parsed;
  };

  let stopping: Promise<void> | undefined;
  return {
    url,
    apiUrl: `${url}/v4`,
    adminToken,
    operatorToken,
    operator: {
      reset: (euuid) => control('POST', '/_stratus/reset', euuid === undefined ? {} : { euuid }),
      seed: (document) => control('POST', '/_stratus/seed', document),
      setClock: (mode) => control('PUT', '/_stratus/clock', { mode }),
      advanceClock: (by) => control('POST', '/_stratus/clock/advance', by),
      setFaults: (rules) => control('PUT', '/_stratus/faults', { rules }),
      setTiming: (body) => control('PUT', '/_stratus/timing', body),
      health: () => control('GET', '/_stratus/health'),
      request: control,
    },
    api: (path, init = {}) =>
      fetch(`${url}/v4${path.startsWith('/') ? path : `/${path}`}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${init.token ?? adminToken}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      }),
    stop: () => {
      stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
        }
        rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
