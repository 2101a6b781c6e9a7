#!/usr/bin/env node
// The `stratus` command. It runs the compiled output in dist/ (made by `npm run build`, which
// `npm install` runs; its bundle, dist/bundle/, where there is one, with its code cache) when
// that build is newer than every file under src/; otherwise, as after an edit, the TypeScript
// sources through tsx's loader, so a stale build never runs. The package made by `npm pack` has no src/ and always
// runs dist/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Whether dist/ was built after the last change to src/ (a stat of each source: a few ms). */
function buildIsFresh() {
  let built;
  try {
    built = fs.statSync(path.join(root, 'dist', 'BUILD')).mtimeMs;
  } catch {
    return false;
  }
  const src = path.join(root, 'src');
  // The installed package ships dist/ without src/: its build is the only one.
  if (!fs.existsSync(src)) return true;
  for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    // A plain concatenation: path.join of each of the ~600 names was half of this check's time.
    if (fs.statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > built) return false;
  }
  return true;
}

let main;
let started;
let finished;
if (process.env.STRATUS_FROM_SOURCE !== '1' && buildIsFresh()) {
  // The build's bundle of the same code (bin/build-bundle.js) starts faster, with its code
  // cache (bin/run-bundle.js); a build made without it runs the compiled files.
  const bundle = path.join(root, 'dist', 'bundle', 'cli.cjs');
  if (fs.existsSync(bundle)) {
    const { runBundle } = await import('./run-bundle.js');
    const loaded = runBundle(bundle);
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
