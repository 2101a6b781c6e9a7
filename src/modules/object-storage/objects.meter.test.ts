import { describe, expect, it } from 'vitest';
import type { Database } from '../../db/database.js';
import { TransferMeter } from './objects.meter.js';

/** A database whose transactions only record that they ran (the meter's writes). */
function recordingDb(): { db: Database; writes: () => number } {
  let n = 0;
  const db = {
    transaction: async () => {
      n++;
    },
  } as unknown as Database;
  return { db, writes: () => n };
}

describe('TransferMeter', () => {
  it('discard: counts of the account a reset replaces are never written; other accounts still are', async () => {
    const { db, writes } = recordingDb();
    const meter = new TransferMeter(db, (err) => {
      throw err;
    });
    meter.add(1, 10, '2026-11', 700);
    meter.add(2, 20, '2026-11', 300);
    meter.discard(1);
    await meter.flush();
    expect(writes()).toBe(1);
  });

  it('discard: without an account (a full reset, an import) nothing pending is written', async () => {
    const { db, writes } = recordingDb();
    const meter = new TransferMeter(db, (err) => {
      throw err;
    });
    meter.add(1, 10, '2026-11', 700);
    meter.add(2, 20, '2026-11', 300);
    meter.discard();
    await meter.flush();
    expect(writes()).toBe(0);
  });
});
