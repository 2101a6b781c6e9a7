import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors/api-error.js';
import { MemoryBlobStore } from '../../storage/memory.js';
import { MAX_IMAGE_BYTES, receiveImage } from './upload.js';

const MiB = 1024 * 1024;

/** An endless gzip stream of zeros: a few KB per GB once inflated (a gzip bomb). */
function endlessBomb(): { body: Readable; stop: () => void } {
  const zeros = Buffer.alloc(MiB);
  const source = new Readable({
    read() {
      this.push(zeros);
    },
  });
  const body = source.pipe(createGzip());
  return {
    body,
    stop: () => {
      source.destroy();
      body.destroy();
    },
  };
}

async function keys(store: MemoryBlobStore): Promise<string[]> {
  const out: string[] = [];
  for await (const k of store.list()) out.push(k);
  return out;
}

describe('receiveImage', () => {
  it('receiveImage: the image is bounded once inflated: 5 GB', () => {
    expect(MAX_IMAGE_BYTES).toBe(5 * 1024 ** 3);
  });

  it('receiveImage: an image inflating past the bound is refused (400) and nothing is kept', async () => {
    const store = new MemoryBlobStore();
    const body = Readable.from([gzipSync(Buffer.alloc(8 * MiB))]);
    const err = await receiveImage(store, 'k1', body, 100 * MiB, MiB).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).errors).toEqual([
      { reason: 'The image is larger than 1048576 bytes once decompressed.' },
    ]);
    expect(await keys(store)).toEqual([]);
  });

  it('receiveImage: an endless gzip bomb stops at the bound instead of inflating on', async () => {
    const store = new MemoryBlobStore();
    const bomb = endlessBomb();
    const err = await receiveImage(store, 'k2', bomb.body, 100 * MiB, 4 * MiB).catch(
      (e: unknown) => e,
    );
    bomb.stop();
    expect((err as ApiError).status).toBe(400);
    expect(await keys(store)).toEqual([]);
  });

  it('receiveImage: an image exactly at the bound is taken, with its raw size', async () => {
    const store = new MemoryBlobStore();
    const body = Readable.from([gzipSync(Buffer.alloc(MiB))]);
    const r = await receiveImage(store, 'k3', body, 100 * MiB, MiB);
    expect(r.rawBytes).toBe(MiB);
    expect(await keys(store)).toEqual(['k3']);
  });
});
