#!/usr/bin/env node
// Last step of `npm run build`: starts the built server once, with `npm start`'s Node options, on
// a new SQLite database in a temporary folder and a port the system picks, asks it for a page,
// and stops it. As it stops it writes the bundle's V8 code cache for those options
// (bin/run-bundle.js), so the first `npm start` after a build starts as fast as the later ones
// (without it, that start compiled the whole bundle: about 250 ms more). Where this cannot run
// (no port to listen on, say), the build goes on and the first start writes the cache instead.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startOptions } from './start-options.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const GIVE_UP_MS = 30_000;

async function warm() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-warm-'));
  const child = spawn(process.execPath, [...startOptions(), 'bin/stratus.js', 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      // Everything the server keeps (its database, object bytes) in the temporary folder.
      STRATUS_DATA_DIR: dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'stratus.db')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error('no listening line in 30 s')), GIVE_UP_MS);
      child.stdout.on('data', (d) => {
        out += d;
        const found = /listening on (http:\/\/\S+?)\/v4\b/.exec(out);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code})`)));
    });
    for (const page of ['/v4/regions', '/console/']) {
      await (await fetch(`${url}${page}`, { signal: AbortSignal.timeout(GIVE_UP_MS) })).text();
    }
  } finally {
    if (child.exitCode === null) {
      await new Promise((resolve) => {
        // A server that does not stop within the time is killed (it then writes no cache).
        const kill = setTimeout(() => child.kill('SIGKILL'), GIVE_UP_MS);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

try {
  await warm();
  process.stdout.write("dist/bundle/: the bundle's code cache for npm start's Node options\n");
} catch (err) {
  process.stdout.write(`dist/bundle/: no code cache made at build time (${err.message})\n`);
}
