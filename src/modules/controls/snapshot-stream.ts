import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { errors } from '../../errors/errors.js';
import type { BlobStore } from '../../storage/index.js';
import type { Snapshot } from './snapshot.js';
import type { StateService } from './state.service.js';

/**
 * The streamed snapshot (format version 2, `application/x-ndjson`): one JSON value per line.
 *
 *   {"format":"stratus-snapshot","version":2,…,"blobs":"follow"}   the rows (as version 1)
 *   {"blob":{"area":"objects","key":"<32 hex>"}}                    then, for each blob the rows use,
 *   {"data":"<base64>"}                                             its bytes in chunks,
 *   {"end":{"size":123,"sha256":"<hex>"}}                           and its length and digest;
 *   {"done":{"blobs":1}}                                            last: a stream without it is cut.
 *
 * Export reads every blob through its area's BlobStore (local disk or S3), one chunk at a time.
 * Import writes the blobs first, under the same keys (a blob already there is kept), then
 * replaces the rows in one transaction; if anything fails, the blobs it wrote are removed.
 */
export const SNAPSHOT_NDJSON = 'application/x-ndjson';

/** Raw bytes per `data` line. */
const CHUNK = 256 * 1024;
/** The longest line read: the rows' document (as POST's JSON body limit), data lines far less. */
const MAX_LINE = 512 * 1024 * 1024;
const KEY_RE = /^[0-9a-f]{32}$/;

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

async function* rechunk(body: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    pending.push(c as Buffer);
    n += (c as Buffer).length;
    while (n >= size) {
      const all = Buffer.concat(pending);
      yield all.subarray(0, size);
      pending = [all.subarray(size)];
      n -= size;
    }
  }
  if (n > 0) yield Buffer.concat(pending);
}

/** The whole state, rows then bytes, as NDJSON lines. */
export async function* snapshotLines(state: StateService): AsyncGenerator<string> {
  const snap = await state.exportSnapshot();
  yield line({ ...snap, blobs: 'follow' });
  let count = 0;
  for (const h of state.hooks) {
    if (!h.blobs) continue;
    const { area, store } = h.blobs;
    for (const key of new Set(h.blobs.keys(snap.tables))) {
      let body: Readable;
      try {
        body = await store.get(key);
      } catch (err) {
        // Deleted since the rows were read (the object went away after the export's view).
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      yield line({ blob: { area, key } });
      const sha = createHash('sha256');
      let size = 0;
      for await (const c of rechunk(body, CHUNK)) {
        sha.update(c);
        size += c.length;
        yield line({ data: c.toString('base64') });
      }
      yield line({ end: { size, sha256: sha.digest('hex') } });
      count++;
    }
  }
  yield line({ done: { blobs: count } });
}

/** Lines of a stream, without holding more than the current line. */
async function* linesOf(body: Readable): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let n = 0;
  for await (const raw of body) {
    let c = raw as Buffer;
    for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10)) {
      parts.push(c.subarray(0, i));
      const text = Buffer.concat(parts).toString('utf8');
      parts = [];
      n = 0;
      if (text.trim() !== '') yield text;
      c = c.subarray(i + 1);
    }
    parts.push(c);
    n += c.length;
    if (n > MAX_LINE) throw bad('a line is longer than the largest snapshot document.');
  }
  const rest = Buffer.concat(parts).toString('utf8');
  if (rest.trim() !== '') yield rest;
}

const bad = (why: string) => errors.reason(`Not a valid streamed snapshot: ${why}`);

function parse(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw bad('every line must be a JSON object.');
}

export interface StreamImportResult {
  tables: number;
  rows: number;
  blobs: number;
}

/** Restores a streamed snapshot (or a single-document one: version 1, or 2 without bytes). */
export async function importSnapshotStream(
  state: StateService,
  body: Readable,
): Promise<StreamImportResult> {
  const lines = linesOf(body);
  const next = async () => {
    const r = await lines.next();
    return r.done ? undefined : parse(r.value);
  };
  const first = await next();
  if (!first) throw errors.reason('Send the snapshot as the request body.');
  const doc: Snapshot = await state.check(first);
  const stores = new Map<string, BlobStore>();
  for (const h of state.hooks) if (h.blobs) stores.set(h.blobs.area, h.blobs.store);
  const written: { store: BlobStore; key: string }[] = [];
  try {
    let blobs = 0;
    if (doc.blobs === 'follow') {
      for (;;) {
        const rec = await next();
        if (!rec) throw bad('it ends before its "done" line (cut short?).');
        if (rec.done !== undefined) {
          const want = (rec.done as { blobs?: unknown }).blobs;
          if (want !== blobs)
            throw bad(`"done" counts ${String(want)} blobs, the stream had ${blobs}.`);
          break;
        }
        const b = rec.blob as { area?: unknown; key?: unknown } | undefined;
        const store = typeof b?.area === 'string' ? stores.get(b.area) : undefined;
        if (!b || !store || typeof b.key !== 'string' || !KEY_RE.test(b.key))
          throw bad('a "blob" line names an unknown area or a bad key.');
        await receiveBlob(store, b.key, next, written);
        blobs++;
      }
    }
    const result = await state.importSnapshot(doc, { bytesCame: doc.blobs === 'follow' });
    return { ...result, blobs };
  } catch (err) {
    for (const w of written) await w.store.delete(w.key).catch(() => undefined);
    throw err;
  } finally {
    await lines.return(undefined);
    body.resume();
  }
}

/** One blob's `data` lines up to its `end`, into the store (kept if already there, same size). */
async function receiveBlob(
  store: BlobStore,
  key: string,
  next: () => Promise<Record<string, unknown> | undefined>,
  written: { store: BlobStore; key: string }[],
): Promise<void> {
  const existing = await store.head(key);
  const pass = new PassThrough();
  let failure: unknown;
  const put = existing
    ? undefined
    : store.put(key, pass).catch((err: unknown) => {
        failure = err;
        return undefined;
      });
  if (put) written.push({ store, key });
  const sha = createHash('sha256');
  let size = 0;
  for (;;) {
    const rec = await next();
    if (!rec) throw bad(`blob ${key} ends before its "end" line.`);
    if (typeof rec.data === 'string') {
      const buf = Buffer.from(rec.data, 'base64');
      sha.update(buf);
      size += buf.length;
      if (put && !pass.write(buf)) await Promise.race([once(pass, 'drain'), put]);
      if (failure) throw failure;
      continue;
    }
    const end = rec.end as { size?: unknown; sha256?: unknown } | undefined;
    if (!end) throw bad(`blob ${key}: expected "data" or "end".`);
    pass.end();
    if (put) await put;
    if (failure) throw failure;
    if (end.size !== size || end.sha256 !== sha.digest('hex'))
      throw bad(`blob ${key} does not match its length or SHA-256 (damaged?).`);
    if (existing && existing.size !== size)
      throw bad(`blob ${key} exists here with other contents.`);
    return;
  }
}
