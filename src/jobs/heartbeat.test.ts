import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import { Heartbeat } from './heartbeat.js';
import type { JobRunner } from './runner.js';

/** A database whose writes take 20 ms and record what they wrote, in order. */
function slowDb(written: string[]): Database {
  const chain = (what: string): any => {
    const c: any = new Proxy(
      {},
      {
        get: (_t, key) =>
          key === 'execute'
            ? () => new Promise((r) => setTimeout(() => r(written.push(what)), 20))
            : () => c,
      },
    );
    return c;
  };
  return {
    db: { insertInto: () => chain('insert'), deleteFrom: () => chain('delete') },
  } as unknown as Database;
}

describe('Heartbeat', () => {
  it('Heartbeat.start: resolves once the first heartbeat is written, so a worker is listed before it runs a job', async () => {
    const written: string[] = [];
    const hb = new Heartbeat({
      db: slowDb(written),
      runner: {
        workerId: 'w1',
        lastPassMs: undefined,
        stats: { steps: 0 },
      } as unknown as JobRunner,
      log: pino({ enabled: false }),
      version: 'test',
    });
    await hb.start('worker');
    expect(written[0]).toBe('insert');
    // A second start neither beats again nor resolves before the first write.
    await hb.start('worker');
    expect(written.filter((w) => w === 'insert')).toHaveLength(1);
    await hb.stop();
    expect(written.at(-1)).toBe('delete');
  });
});
