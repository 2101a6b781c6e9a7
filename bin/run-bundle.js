// Runs the build's bundle (dist/bundle/cli.cjs, made by bin/build-bundle.mjs) with a V8 code
// cache kept beside it. Node 20 has no code cache for ES modules, so the bundle is CommonJS,
// compiled here through `vm.Script` with the bytes of a previous start (`cachedData`): V8 then
// skips parsing and compiling the functions the cache holds. The cache is made by the first
// `serve` whose start had none (or whose cache V8 rejected: another Node or V8 version, other
// V8 flags, another bundle), a second after its server listens, so the functions the start and
// its first requests compiled lazily are in it too (or as it stops, if that comes first). It is
// written to a temporary file renamed into place (a concurrent start reads the old cache or the
// new one, never half of one); where the folder cannot be written (an installed package owned
// by another user) each start compiles as it would without a cache. Each set of Node options
// has a cache of its own (cacheFileOf); the build makes the one for `npm start`'s options
// (bin/warm-cache.mjs). CommonJS (bin/package.json): bin/stratus.js requires it.
'use strict';
const { isAscii } = require('node:buffer');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');
const { crc32 } = require('node:zlib');

const [WRAP_START, WRAP_END] = Module.wrapper;

/**
 * The text V8 compiles: the bundle as a CommonJS module function. The build writes it already
 * wrapped (bin/build-bundle.mjs), since wrapping it here made a second string of its 6 MB that V8
 * then copied into a third to parse it; any other file is wrapped here. An ASCII file (the build
 * writes nothing else: bin/bundle-ascii.mjs) is decoded as Latin-1, the same characters, which
 * Node copies once into a one-byte string, where decoding UTF-8 took more copies (about 20 ms
 * less for the bundle, by its page faults: docs/performance.md).
 */
function sourceOf(bytes) {
  const text = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  return text.startsWith(WRAP_START) && text.endsWith(WRAP_END) ? text : Module.wrap(text);
}

/**
 * The cache's file. V8 takes a cache only in a process with the flags it was made with, so each
 * set of Node options has a cache of its own: `npm start`'s (`cli.cjs.cache.<CRC-32 of them>`),
 * none (`cli.cjs.cache`), the test suite's servers', a profiler's. With one file for all, each
 * start with other flags than the last replaced it, and the next start of the other kind
 * compiled everything again (about 250 ms more).
 */
function cacheFileOf(file) {
  const options = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\n').trim();
  return options === '' ? `${file}.cache` : `${file}.cache.${crc32(options).toString(16)}`;
}

/**
 * The cache file's first line: the bundle's identity and the CRC-32 of V8's data, padded with
 * spaces so that the data starts at a multiple of 8 bytes. V8 takes cached data in place only
 * when it is aligned to a pointer; otherwise it first copies all of it (3.5 MB, a new page of
 * memory every 4 KB: about 860 page faults of a start). The buffer it is read into is
 * allocated aligned.
 */
function cacheHead(identity, sum) {
  const line = `${identity}${sum}`;
  return Buffer.from(`${line.padEnd(Math.ceil((line.length + 1) / 8) * 8 - 1, ' ')}\n`);
}

/** Reads a file from its start into `buf`, up to `size` bytes or its end; answers the count. */
function readInto(fd, buf, size) {
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return at;
}

/**
 * Reads and compiles the bundle, without running it: `bin/stratus.js` checks meanwhile that the
 * build is newer than the sources. `cacheUsed`: whether V8 took the cache. `run()` runs it and
 * returns its exports (the CLI's `main`) and `started`, to call once a server listens:
 * `cacheAfterMs` later (by then its first requests have run) the cache is written when the start
 * had none that V8 took.
 */
function compileBundle(file, { cacheAfterMs = 1000 } = {}) {
  const cacheFile = cacheFileOf(file);
  // One buffer for the bundle and then its cache: the source is copied out of it (sourceOf)
  // before the cache is read into the same memory. A second buffer's pages were about 10 ms of a
  // start on this machine (each new page is a fault, about 12 us; docs/performance.md). A cache
  // that grew meanwhile is read cut short, and its CRC-32 then refuses it.
  const cacheSize = fs.statSync(cacheFile, { throwIfNoEntry: false })?.size ?? 0;
  let st;
  let bytes;
  // What was read (a file cut short meanwhile is shorter): the buffer's other bytes are not the
  // file's.
  let length;
  const fd = fs.openSync(file, 'r');
  try {
    st = fs.fstatSync(fd);
    bytes = Buffer.allocUnsafeSlow(Math.max(st.size, cacheSize));
    length = readInto(fd, bytes, st.size);
  } finally {
    fs.closeSync(fd);
  }
  const source = sourceOf(bytes.subarray(0, length));
  // V8 checks a cache against the source's length, not its text, and (in release builds) does
  // not check the cache's own bytes: the cache's first line names the file it was made for
  // (inode, size, mtime) and the CRC-32 of the bytes after it, so one made for another build, or
  // damaged on disk, is not offered to V8.
  const identity = `${st.ino}:${st.size}:${st.mtimeMs}:`;
  let cachedData;
  if (cacheSize > 0) {
    try {
      const cacheFd = fs.openSync(cacheFile, 'r');
      let stored;
      try {
        stored = bytes.subarray(0, readInto(cacheFd, bytes, bytes.length));
      } finally {
        fs.closeSync(cacheFd);
      }
      const eol = stored.indexOf(10);
      const head = eol > 0 ? stored.subarray(0, eol).toString('latin1') : '';
      const data = stored.subarray(eol + 1);
      const sum = head.slice(identity.length).trimEnd();
      if (head.startsWith(identity) && sum === String(crc32(data))) cachedData = data;
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(source, { filename: file, cachedData });
  const needsCache = cachedData === undefined || script.cachedDataRejected === true;
  return {
    cacheUsed: !needsCache,
    run: () => runCompiled(script, file, cacheFile, identity, needsCache, cacheAfterMs),
  };
}

/** Runs a compiled bundle (see compileBundle). */
function runCompiled(script, file, cacheFile, identity, needsCache, cacheAfterMs) {
  const module = { exports: {}, filename: file, id: file };
  script
    .runInThisContext()
    .call(
      module.exports,
      module.exports,
      Module.createRequire(file),
      module,
      file,
      path.dirname(file),
    );

  let state = needsCache ? 'needed' : 'done';
  const writeCache = () => {
    if (state === 'done') return;
    state = 'done';
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    try {
      const data = script.createCachedData();
      fs.writeFileSync(tmp, Buffer.concat([cacheHead(identity, crc32(data)), data]));
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

/** Reads, compiles and runs the bundle (compileBundle, then run). */
function runBundle(file, options) {
  return compileBundle(file, options).run();
}

module.exports = { cacheFileOf, compileBundle, runBundle };
