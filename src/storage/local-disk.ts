import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, type ByteRange, meter, type PutResult } from './blob-store.js';

const KEY_RE = /^[0-9a-f]{32}$/;

/**
 * Blobs as files under `<root>/<2 hex>/<2 hex>/<key>`. A write goes to `<root>/tmp/` and is
 * renamed into place once complete and flushed, so a crash never leaves a partial blob at a key.
 */
export class LocalDiskBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  newKey(): string {
    return randomUUID().replaceAll('-', '');
  }

  private file(key: string): string {
    if (!KEY_RE.test(key)) throw new Error(`bad blob key ${key}`);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(key: string, body: Readable, opts: { maxBytes?: number } = {}): Promise<PutResult> {
    const target = this.file(key);
    const tmpDir = path.join(this.root, 'tmp');
    await mkdir(tmpDir, { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(tmpDir, `${key}.${randomBytes(4).toString('hex')}`);
    const metered = meter(opts.maxBytes);
    try {
      await pipeline(body, metered.stream, createWriteStream(tmp, { flags: 'wx' }));
      const fh = await open(tmp, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return metered.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.file(key);
    const fh = await open(file, 'r');
    return createReadStream('', {
      fd: fh,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async head(key: string): Promise<{ size: number; modifiedMs: number } | null> {
    try {
      const s = await stat(this.file(key));
      return { size: s.size, modifiedMs: s.mtimeMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async *list(prefix = ''): AsyncIterable<string> {
    let top: string[];
    try {
      top = await readdir(this.root);
    } catch {
      return;
    }
    for (const a of top.filter((d) => /^[0-9a-f]{2}$/.test(d)).sort()) {
      for (const b of (await readdir(path.join(this.root, a))).sort()) {
        for (const k of (await readdir(path.join(this.root, a, b))).sort()) {
          if (KEY_RE.test(k) && k.startsWith(prefix)) yield k;
        }
      }
    }
  }

  async sweepPartial(olderThanMs: number): Promise<number> {
    const dir = path.join(this.root, 'tmp');
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      const file = path.join(dir, name);
      const s = await stat(file).catch(() => null);
      if (s && s.mtimeMs < olderThanMs) {
        await rm(file, { force: true });
        n++;
      }
    }
    return n;
  }
}
