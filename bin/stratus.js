#!/usr/bin/env node
// The `stratus` command. It runs the compiled output in dist/ (made by `npm run build`, which
// `npm install` runs; its bundle, dist/bundle/, where there is one, with its code cache) when
// that build is newer than every file under src/ but its tests; otherwise, as after an edit, the
// TypeScript sources through tsx's loader, so a stale build never runs. The package made by
// `npm pack` has no src/ and always runs dist/.
//
// CommonJS (bin/package.json), as is bin/run-bundle.js: an ES module entry starts Node's ES
// module loader first, about 15 ms of a start (docs/performance.md).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/**
 * Whether dist/ was built after the last change to src/. The stat of each source (about 600) is
 * made on libuv's threads while this thread reads and compiles the bundle; their answers are
 * counted when it asks.
 */
function buildIsFresh() {
  let built;
  try {
    built = fs.statSync(path.join(root, 'dist', 'BUILD')).mtimeMs;
  } catch {
    return Promise.resolve(false);
  }
  const src = path.join(root, 'src');
  // The installed package ships dist/ without src/: its build is the only one.
  if (!fs.existsSync(src)) return Promise.resolve(true);
  // Test files (`*.test.ts`) are not part of the build (tsconfig.build.json): editing one leaves
  // it current.
  const files = fs
    .readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'));
  return new Promise((resolve) => {
    let left = files.length;
    let fresh = true;
    if (left === 0) resolve(true);
    for (const entry of files) {
      // A plain concatenation: path.join of each of the ~600 names was half of this check's time.
      fs.stat(`${entry.parentPath}/${entry.name}`, (err, st) => {
        if (err || st.mtimeMs > built) fresh = false;
        if (--left === 0) resolve(fresh);
      });
    }
  });
}

async function start() {
  const fromSource = process.env.STRATUS_FROM_SOURCE === '1';
  const fresh = fromSource ? Promise.resolve(false) : buildIsFresh();
  // The build's bundle of the same code (bin/build-bundle.mjs) starts faster, with its code
  // cache (bin/run-bundle.js); a build made without it runs the compiled files.
  const bundle = path.join(root, 'dist', 'bundle', 'cli.cjs');
  const compiled =
    !fromSource && fs.existsSync(bundle)
      ? require('./run-bundle.js').compileBundle(bundle)
      : undefined;
  let main;
  let started;
  let finished;
  if (await fresh) {
    if (compiled) {
      const loaded = compiled.run();
      ({ main } = loaded.exports);
      started = loaded.started;
      finished = loaded.finished;
    } else {
      ({ main } = await import('../dist/cli.js'));
    }
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../src/cli.ts'));
  }
  process.exitCode = await main(process.argv.slice(2), { started });
  finished?.();
}

start().catch((err) => {
  process.exitCode = 1;
  console.error(err);
});
