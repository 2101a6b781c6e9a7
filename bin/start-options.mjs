// The Node options of `npm start`, read from its script in package.json
// (`node <options> bin/stratus.js serve`): the build's cache warm-up (bin/warm-cache.mjs) and the
// bench (bench/servers.ts) start the server with them, so that they run what `npm start` runs and
// use the code cache made for those options (bin/run-bundle.js).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The options between `node` and `bin/stratus.js` in `npm start`'s script. */
export function startOptions() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const words = String(pkg.scripts?.start ?? '').split(/\s+/);
  const at = words.indexOf('bin/stratus.js');
  if (words[0] !== 'node' || at < 0) {
    throw new Error('package.json: the start script is not `node <options> bin/stratus.js ...`');
  }
  return words.slice(1, at);
}
