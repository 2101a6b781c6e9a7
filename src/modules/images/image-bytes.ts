import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where the bytes of uploaded images live. Small on purpose, so that the object-storage blob
 * store can stand behind it later. Keys are `<accountId>/<imageId>`. `write` takes the whole
 * stream and makes the object visible only once it has been read to its end.
 */
export interface ImageBytes {
  write(key: string, data: Readable): Promise<number>;
  read(key: string): Promise<Readable | undefined>;
  size(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
}

const SAFE_KEY = /^[0-9]+\/[0-9]+$/;

function checkKey(key: string): void {
  if (!SAFE_KEY.test(key)) throw new Error(`image store: bad key ${key}`);
}

/** Files under a directory (`$STRATUS_DATA_DIR/images`): written to a temporary name, then renamed. */
export class LocalImageBytes implements ImageBytes {
  constructor(private readonly dir: string) {}

  private file(key: string): string {
    checkKey(key);
    return path.join(this.dir, `${key}.img.gz`);
  }

  async write(key: string, data: Readable): Promise<number> {
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.part`;
    let bytes = 0;
    const count = new PassThrough();
    count.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    try {
      await pipeline(data, count, createWriteStream(tmp));
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return bytes;
  }

  async read(key: string): Promise<Readable | undefined> {
    const file = this.file(key);
    return (await this.size(key)) === undefined ? undefined : createReadStream(file);
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.file(key))).size;
    } catch {
      return undefined;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }
}

/** In memory (tests). */
export class MemoryImageBytes implements ImageBytes {
  readonly objects = new Map<string, Buffer>();

  async write(key: string, data: Readable): Promise<number> {
    checkKey(key);
    const chunks: Buffer[] = [];
    await pipeline(
      data,
      new Writable({
        write(chunk: Buffer, _enc, cb) {
          chunks.push(chunk);
          cb();
        },
      }),
    );
    const all = Buffer.concat(chunks);
    this.objects.set(key, all);
    return all.length;
  }

  async read(key: string): Promise<Readable | undefined> {
    const b = this.objects.get(key);
    if (!b) return undefined;
    const s = new PassThrough();
    s.end(b);
    return s;
  }

  async size(key: string): Promise<number | undefined> {
    return this.objects.get(key)?.length;
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
