import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: plain JavaScript of bin/, without types
import { startOptions } from '../bin/start-options.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 60_000;

export interface Server {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** Starts a child process and waits for a line of its stdout that yields the base URL. */
function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  urlFrom: (line: string) => string | undefined,
  name: string,
  cwd = ROOT,
): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${name} did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      buffered += text;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const url = urlFrom(line);
        if (url !== undefined && child.pid !== undefined) {
          clearTimeout(timer);
          resolve({ url, pid: child.pid, stop });
        }
      }
    });
    // Warnings and errors of the server go to the bench's stderr.
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

export interface StratusOptions {
  /** `sqlite:<file>` or `postgres://…`; the data dir is used for SQLite when this is a data dir. */
  databaseUrl?: string;
  dataDir?: string;
  adminToken: string;
  /** Extra node options (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Extra environment (e.g. `STRATUS_FEED_CACHE_MB: '0'`). */
  env?: Record<string, string>;
  /** The build to run (a folder with its `bin/`, `dist/` and `node_modules`): this one by default. */
  root?: string;
}

/**
 * The node flags of `npm start`, read from package.json (bin/start-options.mjs), so the bench
 * measures what users run, with the code cache the build made for them.
 */
export const SERVE_NODE_FLAGS: string[] = startOptions();

/** `stratus serve` as a child process, rate limits off, warnings only. */
export function startStratus(o: StratusOptions): Promise<Server> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    STRATUS_RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    STRATUS_ADMIN_TOKEN: o.adminToken,
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    ...(o.dataDir ? { STRATUS_DATA_DIR: o.dataDir } : {}),
    ...(o.env ?? {}),
  };
  return startChild(
    [...SERVE_NODE_FLAGS, ...(o.nodeArgs ?? []), 'bin/stratus.js', 'serve'],
    env,
    (line) => /listening on (http:\/\/\S+?)\/v4\b/.exec(line)?.[1],
    'stratus',
    o.root,
  );
}

/** The raw node:http baseline answering `body` to every request. */
export function startRaw(body: string): Promise<Server> {
  return startChild(
    ['--import', 'tsx', 'bench/raw-server.ts'],
    { PATH: process.env.PATH, RAW_BODY: body },
    (line) => {
      const port = /^listening (\d+)$/.exec(line.trim())?.[1];
      return port ? `http://127.0.0.1:${port}` : undefined;
    },
    'raw server',
  );
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc). */
export async function processCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces): utime is the 14th, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** What a server started with bench/count-statements.mjs has sent to its database so far. */
export interface StatementCounts {
  statements: number;
  begin: number;
  commit: number;
  /** PostgreSQL: the pool's settings as the server made it. */
  pool: { max: number; idleTimeoutMillis: number | null } | null;
  at: number;
}

/**
 * The statement counts of a server started with bench/count-statements.mjs: asks for them
 * (SIGUSR2) and waits until the server has written them to `file`.
 */
export async function statementCounts(server: Server, file: string): Promise<StatementCounts> {
  const mtime = () =>
    stat(file).then(
      (s) => s.mtimeMs,
      () => 0,
    );
  const before = await mtime();
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 300; i++) {
    if ((await mtime()) !== before) {
      const text = await readFile(file, 'utf8').catch(() => '');
      if (text !== '') return JSON.parse(text) as StatementCounts;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the statement counts did not arrive');
}
