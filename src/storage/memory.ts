import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, type ByteRange, meter, type PutResult } from './blob-store.js';

/**
 * Blobs in memory (tests that need no data directory). Same contract as the other stores: a
 * blob appears at its key only once its stream has ended.
 */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<string, { bytes: Buffer; modifiedMs: number }>();

  newKey(): string {
    return randomUUID().replaceAll('-', '');
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const chunks: Buffer[] = [];
    const metered = meter(opts.maxBytes);
    await pipeline(
      body,
      metered.stream,
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          chunks.push(chunk);
          cb();
        },
      }),
    );
    this.blobs.set(key, { bytes: Buffer.concat(chunks), modifiedMs: Date.now() });
    return metered.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const b = this.blobs.get(key);
    if (!b) throw Object.assign(new Error(`blob ${key} does not exist`), { code: 'ENOENT' });
    return Readable.from([range ? b.bytes.subarray(range.start, range.end + 1) : b.bytes]);
  }

  async head(key: string): Promise<{ size: number; modifiedMs: number } | null> {
    const b = this.blobs.get(key);
    return b ? { size: b.bytes.length, modifiedMs: b.modifiedMs } : null;
  }

  async delete(key: string): Promise<void> {
    this.blobs.delete(key);
  }

  async *list(prefix = ''): AsyncIterable<string> {
    for (const k of [...this.blobs.keys()].sort()) if (k.startsWith(prefix)) yield k;
  }

  async sweepPartial(): Promise<number> {
    return 0;
  }
}
