import type { Database } from '../../db/database.js';
import { isForeignKeyViolation } from '../../errors/db-errors.js';
import { countTransfer } from './objects.repository.js';

interface Pending {
  accountId: number;
  bucketId: number;
  month: string;
  bytes: number;
}

/** How long sent bytes may wait in memory before they are written. */
const FLUSH_DELAY_MS = 250;

/**
 * Outbound bytes of the data plane, summed in memory per bucket and month and written in one
 * transaction a moment later (a GET does not pay for a write of its own). Readers of the
 * counters call `flush()` first; the process flushes on close.
 */
export class TransferMeter {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(accountId: number, bucketId: number, month: string, bytes: number): void {
    if (bytes <= 0) return;
    const key = `${bucketId}/${month}`;
    const p = this.pending.get(key);
    if (p) p.bytes += bytes;
    else this.pending.set(key, { accountId, bucketId, month, bytes });
    this.timer ??= setTimeout(() => {
      void this.flush().catch(this.onError);
    }, FLUSH_DELAY_MS).unref();
  }

  /**
   * Forgets the counts not yet written, of one account or of all: a reset or an import replaces
   * the counters, and bytes sent before it must not land after it.
   */
  discard(accountId?: number): void {
    for (const [key, p] of this.pending) {
      if (accountId === undefined || p.accountId === accountId) this.pending.delete(key);
    }
  }

  /** Writes every pending count; resolves once they (and any flush under way) are stored. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(async () => {
      for (const p of batch) {
        try {
          await this.db.transaction((tx) =>
            countTransfer(tx, p.accountId, p.bucketId, p.month, 'bytes_out', p.bytes),
          );
        } catch (err) {
          // The account went away meanwhile: its counts go with it.
          if (!isForeignKeyViolation(err)) this.onError(err);
        }
      }
    });
    return this.flushing;
  }
}
