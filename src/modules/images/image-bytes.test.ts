import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalImageBytes, MemoryImageBytes } from './image-bytes.js';
import { NOT_GZIP, receiveImage } from './upload.js';

const text = async (s: Readable | undefined) => {
  const chunks: Buffer[] = [];
  for await (const c of s ?? []) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('image store', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'stratus-images-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('LocalImageBytes: writes, reads, sizes and deletes files under its directory', async () => {
    const store = new LocalImageBytes(dir);
    expect(await store.write('1/2', Readable.from([Buffer.from('abc'), Buffer.from('def')]))).toBe(
      6,
    );
    expect(await store.size('1/2')).toBe(6);
    expect(await text(await store.read('1/2'))).toBe('abcdef');
    expect(await readdir(path.join(dir, '1'))).toEqual(['2.img.gz']);
    await store.delete('1/2');
    expect(await store.size('1/2')).toBeUndefined();
    expect(await store.read('1/2')).toBeUndefined();
    await expect(store.write('../x', Readable.from(['a']))).rejects.toThrow(/bad key/);
  });

  it('LocalImageBytes: a failed write leaves no file, not even a partial one', async () => {
    const store = new LocalImageBytes(dir);
    const broken = new Readable({
      read() {
        this.push('partial');
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(store.write('1/3', broken)).rejects.toThrow('connection reset');
    expect(await readdir(path.join(dir, '1'))).toEqual([]);
  });

  it('receiveImage: stores the gzip body and measures the raw image; refuses other bodies and oversize ones', async () => {
    const store = new MemoryImageBytes();
    const raw = Buffer.alloc(3_000_000, 1);
    const r = await receiveImage(store, '1/1', Readable.from([gzipSync(raw)]));
    expect(r.rawBytes).toBe(3_000_000);
    expect(store.objects.get('1/1')?.length).toBe(r.storedBytes);
    await expect(receiveImage(store, '1/2', Readable.from([Buffer.from('plain')]))).rejects.toThrow(
      NOT_GZIP,
    );
    expect(store.objects.has('1/2')).toBe(false);
    await expect(
      receiveImage(store, '1/3', Readable.from([gzipSync(raw)]), 100),
    ).rejects.toMatchObject({ status: 413 });
    expect(store.objects.has('1/3')).toBe(false);
  });
});
