import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker as WorkerType } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/**
 * The size the WAL file must have reached before the checkpointer starts: SQLite's own threshold
 * (1,000 pages of 4 KiB), so only a process that has written enough for SQLite to checkpoint once
 * starts the thread. An idle server's empty commits (the job runner's passes) write nothing and
 * never start it.
 */
export const CHECKPOINTER_AFTER_WAL_BYTES = 1_000 * 4_096;
/** Every this many commits, the WAL file's size is looked at (a stat: a few microseconds). */
export const CHECKPOINTER_LOOK_EVERY = 64;
/** How often the checkpointer copies the WAL's new frames into the database file. */
export const CHECKPOINT_EVERY_MS = 100;
/**
 * The connection's own automatic checkpoint once the checkpointer runs: only a safety net (40 MB
 * of WAL at 4 KiB pages) for a checkpointer that cannot keep up or has stopped. SQLite's default,
 * 1,000 pages, stays until the checkpointer starts and comes back if its thread fails.
 */
export const SAFETY_NET_PAGES = 10_000;
const SQLITE_DEFAULT_PAGES = 1_000;

/**
 * The checkpointer's thread, CommonJS run by `new Worker(code, { eval: true })`: its own
 * connection to the file, a PASSIVE checkpoint every CHECKPOINT_EVERY_MS (it never waits for nor
 * blocks the writer or the readers; with nothing new in the WAL it writes nothing), and on
 * `stop` the connection closed. It reports each checkpoint that found new frames.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 0');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
let last = -1;
const timer = setInterval(() => {
  try {
    const r = checkpoint.get();
    if (r.checkpointed > 0 && r.checkpointed !== last) parentPort.postMessage(r.checkpointed);
    last = r.checkpointed;
  } catch (err) {
    // SQLITE_BUSY: another connection checkpoints at this moment; the next tick tries again.
    if (err && err.code !== 'SQLITE_BUSY') throw err;
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Checkpoints a SQLite database's write-ahead log on a thread of its own.
 *
 * In WAL mode a commit appends pages to the log, and every 1,000 pages the committing connection
 * copies them into the database file and syncs both files (`synchronous = NORMAL` syncs only at
 * checkpoints): a stall of 5 to 15 ms on the one thread that serves every request, about one
 * commit in 40 under a create load (bench/where-time-goes.md). Here, once the WAL file has
 * reached that threshold (the process writes), a worker thread with its own connection does those
 * checkpoints (PASSIVE: it waits for no one) and the connection's own threshold becomes a safety
 * net.
 * Durability is unchanged: a commit is in the log before it is answered, whoever copies it later.
 * Another process on the same file (a `stratus worker`, the admin CLI) checkpoints as it always did
 * unless it runs its own checkpointer; two checkpoints at once are serialised by SQLite.
 */
export class WalCheckpointer {
  private commits = 0;
  private worker: WorkerType | undefined;
  private stopping: Promise<void> | undefined;
  /**
   * Checkpoints that found new frames, and the sum of the WAL's checkpointed frames at each, as
   * the thread reported them (tests, the bench).
   */
  readonly stats = { checkpoints: 0, frames: 0 };

  constructor(
    private readonly db: SQLite.Database,
    private readonly file: string,
    private readonly opts: { lookEvery?: number; afterWalBytes?: number; everyMs?: number } = {},
  ) {}

  /** Called after each COMMIT of the connection; starts the thread once the WAL has grown. */
  committed(): void {
    if (this.worker || this.stopping) return;
    if (++this.commits % (this.opts.lookEvery ?? CHECKPOINTER_LOOK_EVERY) !== 0) return;
    let bytes = 0;
    try {
      bytes = statSync(`${this.file}-wal`).size;
    } catch {
      return;
    }
    if (bytes >= (this.opts.afterWalBytes ?? CHECKPOINTER_AFTER_WAL_BYTES)) this.start();
  }

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Starts the thread now (normally once the WAL has grown). */
  start(): void {
    if (this.worker || this.stopping) return;
    const require = createRequire(import.meta.url);
    // Loaded here: a process that never writes much never loads worker_threads.
    const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
    const worker = new Worker(THREAD, {
      eval: true,
      workerData: {
        module: require.resolve('better-sqlite3'),
        file: this.file,
        everyMs: this.opts.everyMs ?? CHECKPOINT_EVERY_MS,
      },
    });
    worker.unref();
    worker.on('message', (frames: number) => {
      this.stats.checkpoints++;
      this.stats.frames += frames;
    });
    // A failed thread: the connection checkpoints for itself again, as SQLite does by default.
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => {
      if (this.worker === worker) this.fallBack();
    });
    this.worker = worker;
    this.db.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  }

  private fallBack(): void {
    this.worker = undefined;
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
  }

  /** Stops the thread and closes its connection (before the main connection closes). */
  stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return this.stopping ?? Promise.resolve();
    this.worker = undefined;
    this.stopping = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage('stop');
    });
    return this.stopping;
  }
}
