// Runs the build's bundle (dist/bundle/cli.cjs, made by bin/build-bundle.js) with a V8 code
// cache kept beside it. Node 20 has no code cache for ES modules, so the bundle is CommonJS,
// compiled here through `vm.Script` with the bytes of a previous start (`cachedData`): V8 then
// skips parsing and compiling the functions the cache holds. The cache is made by the first
// `serve` whose start had none (or whose cache V8 rejected: another Node or V8 version, other
// V8 flags, another bundle), a second after its server listens, so the functions the start and
// its first requests compiled lazily are in it too (or as it stops, if that comes first). It is
// written to a temporary file renamed into place (a concurrent start reads the old cache or the
// new one, never half of one); where the folder cannot be written (an installed package owned
// by another user) each start compiles as it would without a cache. A start with other V8 flags
// than the cache's (V8 rejects it) makes it again for its own flags.
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * Loads the bundle; returns its exports (the CLI's `main`), whether V8 took the cache
 * (`cacheUsed`), and `started`, to call once a server listens: `cacheAfterMs` later (by then
 * its first requests have run) the cache is written when the start had none that V8 took.
 */
export function runBundle(file, { cacheAfterMs = 1000 } = {}) {
  const cacheFile = `${file}.cache`;
  const source = fs.readFileSync(file, 'utf8');
  // V8 checks a cache against the source's length, not its text, and (in release builds) does
  // not check the cache's own bytes: the cache's first line names the file it was made for
  // (inode, size, mtime) and the CRC-32 of the bytes after it, so one made for another build, or
  // damaged on disk, is not offered to V8.
  const st = fs.statSync(file);
  const identity = `${st.ino}:${st.size}:${st.mtimeMs}:`;
  let cachedData;
  try {
    const stored = fs.readFileSync(cacheFile);
    const eol = stored.indexOf(10);
    const head = eol > 0 ? stored.subarray(0, eol).toString('latin1') : '';
    const data = stored.subarray(eol + 1);
    if (head.startsWith(identity) && head.slice(identity.length) === String(crc32(data))) {
      cachedData = data;
    }
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const needsCache = cachedData === undefined || script.cachedDataRejected === true;
  const module = { exports: {}, filename: file, id: file };
  const require = createRequire(file);
  script
    .runInThisContext()
    .call(module.exports, module.exports, require, module, file, path.dirname(file));

  let state = needsCache ? 'needed' : 'done';
  const writeCache = () => {
    if (state === 'done') return;
    state = 'done';
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      const data = script.createCachedData();
      fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${identity}${crc32(data)}\n`), data]));
      fs.renameSync(tmp, cacheFile);
    } catch {
      fs.rmSync(tmp, { force: true });
    }
  };
  return {
    exports: module.exports,
    cacheUsed: !needsCache,
    /** Resolves once the cache is written (or found not needed, or not writable). */
    started() {
      if (state !== 'needed') return Promise.resolve();
      state = 'pending';
      return new Promise((resolve) => {
        setTimeout(() => {
          writeCache();
          resolve();
        }, cacheAfterMs).unref();
      });
    },
    /** When the CLI returns: a server stopped before its cache was written writes it now. */
    finished() {
      if (state === 'pending') writeCache();
    },
  };
}
