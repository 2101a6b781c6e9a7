#!/usr/bin/env node
// Second half of `npm run build`: copies what tsc does not emit (data files under src/) into
// dist/, writes the SQLite image new databases start from (src/db/fresh-image.ts), then
// dist/BUILD, the stamp bin/stratus.js compares with the sources' times.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

let copied = 0;
for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(dist, path.relative(src, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied++;
}
// The image new SQLite databases start from (src/db/fresh-image.ts), from the compiled migrations.
const { writeSqliteImage } = await import('../dist/db/fresh-image.js');
await writeSqliteImage();
fs.writeFileSync(path.join(dist, 'BUILD'), `${new Date().toISOString()}\n`);
process.stdout.write(`dist/: compiled sources, ${copied} data files and the SQLite image\n`);
