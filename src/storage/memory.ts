import { createHash, randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, BlobTooLargeError, type ByteRange, type PutResult } from './blob-store.js';

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
    let size = 0;
    const max = opts.maxBytes ?? Number.POSITIVE_INFINITY;
    await pipeline(
      body,
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          size += chunk.length;
          if (size > max) return cb(new BlobTooLargeError('blob too large'));
          chunks.push(chunk);
          cb();
        },
      }),
    );
    const bytes = Buffer.concat(chunks);
    this.blobs.set(key, { bytes, modifiedMs: Date.now() });
    return {
      size,
      md5: createHash('md5').update(bytes).digest('hex'),
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
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
