import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { principalChanged } from '../../auth/principal-cache.js';
import type { Database } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoSeconds } from '../../lib/time.js';
import { insertToken } from '../identity/identity.repository.js';
import { placeOf, type Inject } from './seed.js';

/**
 * Init hooks (`STRATUS_INIT_DIR`), as LocalStack's: the files of one folder, applied in name
 * order after the first start and after every full reset, once the seed file's accounts and
 * requests are in.
 *
 * - `*.json`: API requests, `{"requests": [{"method", "path", "body"?, "as"?}]}` (or the bare
 *   array), made in order as the user `as` (default `admin`); any answer but 2xx fails the file.
 * - `*.sh` (run by `sh`), `*.js`, `*.mjs`, `*.cjs` (run by this node): scripts, with
 *   `STRATUS_URL` (the server), `STRATUS_API_URL` (its `/v4`), `STRATUS_TOKEN` (a `*` token of the
 *   default account's `admin`, valid while the hooks run) and `STRATUS_INIT_STAGE`
 *   (`first-start` or `reset`) in their environment; a non-zero exit fails the file.
 *
 * Other files are ignored. The first failing file stops the run (later files may depend on it):
 * the server keeps serving, `/_stratus/health` shows the run, and `/_stratus/ready` answers 503
 * until a later run succeeds.
 */
export const INIT_EXTENSIONS = ['.json', '.sh', '.js', '.mjs', '.cjs'] as const;

/** How long one script may run before it is stopped and its file failed. */
export const INIT_SCRIPT_TIMEOUT_MS = 120_000;
/** The end of a script's output kept for the health document and the error. */
const OUTPUT_TAIL = 2000;
/** The label of the tokens hooks act with (deleted when the run ends). */
export const INIT_TOKEN_LABEL = 'stratus-init';

const InitRequest = Type.Object(
  {
    method: Type.Union([Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('DELETE')]),
    path: Type.String({ pattern: '^/v4(beta)?/' }),
    body: Type.Optional(Type.Unknown()),
    /** The user the request is made as (its account's user); `admin` when absent. */
    as: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
type InitRequest = Static<typeof InitRequest>;

export type InitStage = 'first-start' | 'reset';

export interface InitFileResult {
  file: string;
  status: 'done' | 'failed' | 'skipped';
  ms?: number;
  /** Requests made (`.json` files). */
  requests?: number;
  exit_code?: number | null;
  /** Why the file failed. */
  error?: string;
  /** The end of a script's standard output and error. */
  output?: string;
}

export interface InitRun {
  stage: InitStage;
  status: 'running' | 'done' | 'failed';
  started: string;
  finished?: string;
  files: InitFileResult[];
}

/** The hook files of a folder, in the order they run (names sorted by code point). */
export function initFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && INIT_EXTENSIONS.some((x) => e.name.endsWith(x)))
    .map((e) => e.name)
    .sort();
}

/** Checks the folder at start: it exists and can be read (the error names the variable). */
export function checkInitDir(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a directory`;
    initFiles(dir);
    return undefined;
  } catch (err) {
    return `cannot read ${dir}: ${(err as Error).message}`;
  }
}

export interface InitDeps {
  db: Database;
  clock: Clock;
  log: Logger;
}

export interface InitTarget {
  /** Makes an API request in this process (requests files). */
  inject: Inject;
  /** The server's base URL for scripts (`http://127.0.0.1:8080`); none: scripts fail. */
  baseUrl: string | undefined;
}

/**
 * Runs the init hooks of one folder; remembers the last run (for health and readiness). A
 * process runs one run at a time: a second call waits for the first to end.
 */
export class InitHooks {
  private last: InitRun | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: InitDeps,
    readonly dir: string | undefined,
  ) {}

  /** The last run, or the one under way (undefined: none in this process). */
  get lastRun(): InitRun | undefined {
    return this.last;
  }

  /** Runs every hook file; resolves with the run (failed or not), never rejects. */
  run(stage: InitStage, target: InitTarget): Promise<InitRun | undefined> {
    const dir = this.dir;
    if (dir === undefined) return Promise.resolve(undefined);
    const next = this.queue.then(() => this.runAll(dir, stage, target));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runAll(dir: string, stage: InitStage, target: InitTarget): Promise<InitRun> {
    const { log } = this.deps;
    const run: InitRun = {
      stage,
      status: 'running',
      started: new Date().toISOString(),
      files: [],
    };
    this.last = run;
    const tokens = new TemporaryTokens(this.deps);
    try {
      let files: string[];
      try {
        files = initFiles(dir);
      } catch (err) {
        run.files.push({ file: dir, status: 'failed', error: (err as Error).message });
        files = [];
      }
      for (const file of files) {
        if (run.files.some((f) => f.status === 'failed')) {
          run.files.push({ file, status: 'skipped' });
          continue;
        }
        const t0 = performance.now();
        const result = file.endsWith('.json')
          ? await this.requestsFile(path.join(dir, file), target, tokens)
          : await this.script(path.join(dir, file), stage, target, tokens);
        const done = { file, ms: Math.round(performance.now() - t0), ...result };
        run.files.push(done);
        if (done.status === 'failed') log.error({ init: done }, 'init hook failed');
        else log.info({ file, ms: done.ms }, 'init hook done');
      }
    } finally {
      await tokens.drop().catch((err: unknown) => log.error({ err }, 'init hook tokens'));
    }
    run.status = run.files.some((f) => f.status === 'failed') ? 'failed' : 'done';
    run.finished = new Date().toISOString();
    return run;
  }

  private async requestsFile(
    file: string,
    target: InitTarget,
    tokens: TemporaryTokens,
  ): Promise<Omit<InitFileResult, 'file'>> {
    let list: InitRequest[];
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      const wrapped = typeof data === 'object' && data !== null && !Array.isArray(data);
      const items = wrapped ? (data as { requests?: unknown }).requests : data;
      const prefix = wrapped ? 'requests' : '';
      if (!Array.isArray(items) || (wrapped && Object.keys(data).length !== 1)) {
        return {
          status: 'failed',
          error: 'expected a list of requests, or {"requests": [...]}',
        };
      }
      const { Value } = await import('@sinclair/typebox/value');
      for (const [i, item] of items.entries()) {
        const first = Value.Errors(InitRequest, item).First();
        if (first) {
          const field = first.path === '' ? '' : `.${placeOf(first.path)}`;
          return { status: 'failed', error: `${prefix}[${i}]${field}: ${first.message}` };
        }
      }
      list = items as InitRequest[];
    } catch (err) {
      return { status: 'failed', error: `not JSON: ${(err as Error).message}` };
    }
    let n = 0;
    for (const [i, r] of list.entries()) {
      const as = r.as ?? 'admin';
      const token = await tokens.of(as);
      if (!token) {
        return { status: 'failed', requests: n, error: `[${i}].as: no user named "${as}"` };
      }
      const res = await target.inject({
        method: r.method,
        url: r.path,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(r.body !== undefined ? { payload: JSON.stringify(r.body) } : {}),
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        return {
          status: 'failed',
          requests: n,
          error: `[${i}] ${r.method} ${r.path}: ${res.statusCode} ${res.body.slice(0, OUTPUT_TAIL)}`,
        };
      }
      n++;
    }
    return { status: 'done', requests: n };
  }

  private async script(
    file: string,
    stage: InitStage,
    target: InitTarget,
    tokens: TemporaryTokens,
  ): Promise<Omit<InitFileResult, 'file'>> {
    if (target.baseUrl === undefined) {
      return { status: 'failed', error: 'scripts need a listening server (none in this process)' };
    }
    const token = await tokens.of('admin');
    if (!token) return { status: 'failed', error: 'no user named "admin" to run scripts as' };
    const [cmd, args] = file.endsWith('.sh') ? ['sh', [file]] : [process.execPath, [file]];
    return new Promise((resolve) => {
      let output = '';
      const keep = (d: Buffer) => {
        output = (output + d.toString()).slice(-OUTPUT_TAIL);
      };
      // Node's child processes are loaded when a script runs (a server's listen loads them too,
      // through Node's cluster module; a worker process or an admin command does not).
      const { spawn } = process.getBuiltinModule('node:child_process');
      const child = spawn(cmd, args, {
        cwd: path.dirname(file),
        env: {
          ...process.env,
          STRATUS_URL: target.baseUrl,
          STRATUS_API_URL: `${target.baseUrl}/v4`,
          STRATUS_TOKEN: token,
          STRATUS_INIT_STAGE: stage,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const timer = setTimeout(() => child.kill('SIGKILL'), INIT_SCRIPT_TIMEOUT_MS);
      child.on('error', (err) => {
        clearTimeout(timer);
        resolve({ status: 'failed', error: err.message, output });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve({ status: 'done', exit_code: 0, output });
        else
          resolve({
            status: 'failed',
            exit_code: code,
            error:
              signal === 'SIGKILL'
                ? `stopped after ${INIT_SCRIPT_TIMEOUT_MS / 1000} s`
                : `exited with ${code ?? signal}`,
            output,
          });
      });
    });
  }
}

/** `*` tokens of users, made when first needed and deleted when the run ends. */
class TemporaryTokens {
  private readonly made = new Map<string, { id: number; token: string }>();

  constructor(private readonly deps: InitDeps) {}

  async of(username: string): Promise<string | undefined> {
    const key = username.toLowerCase();
    const have = this.made.get(key);
    if (have) return have.token;
    const { db, clock } = this.deps;
    // The default account's admin first, should another account have a user of the same name.
    const user = await db.db
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where((eb) => eb(eb.fn('lower', ['username']), '=', key))
      .orderBy('account_id')
      .executeTakeFirst();
    if (!user) return undefined;
    const nowMs = clock.nowMs();
    const t = await insertToken(
      db,
      {
        accountId: user.account_id,
        userId: user.id,
        kind: 'pat',
        label: INIT_TOKEN_LABEL,
        scopes: '*',
        // A safety net should the process stop before the run ends and deletes it.
        expiry: isoSeconds(nowMs + 86_400_000),
      },
      isoSeconds(nowMs),
    );
    this.made.set(key, t);
    return t.token;
  }

  async drop(): Promise<void> {
    const ids = [...this.made.values()].map((t) => t.id);
    this.made.clear();
    if (ids.length === 0) return;
    await this.deps.db.transaction(async (tx) => {
      await tx.db.deleteFrom('tokens').where('id', 'in', ids).execute();
      for (const id of ids) await principalChanged(tx, { kind: 'token', id });
    });
  }
}
