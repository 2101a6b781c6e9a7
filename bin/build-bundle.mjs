// Part of `npm run build` (after tsc and the data files, before the BUILD stamp): bundles the
// compiled server, dist/cli.js and everything it imports from dist/, into one CommonJS file,
// dist/bundle/cli.cjs, which bin/stratus.js runs through bin/run-bundle.js with a V8 code cache
// (Node 20 keeps none for ES modules: hence CommonJS). A start then loads one file instead of
// about 1,600 small ones, and skips most of its compiling (docs/performance.md). esbuild, not
// hand-written code: tsx already depends on it.
//
// What stays as it was:
// - Packages in EXTERNAL are loaded from node_modules at run time; every other one is inlined,
//   a few with edits that defer work a start does not need (bin/bundle-transforms.mjs).
// - `import.meta.url` of each compiled file still names that file: data files (the catalogue,
//   address pools, the console, package.json) are found where the unbundled build finds them.
// - Dynamic imports stay lazy: each becomes a `require` of a module of the bundle that is
//   evaluated when first imported (the QEMU driver, the S3 blob store and its AWS SDK, the
//   CLI's commands). The sources have no top-level await (a CommonJS bundle could not hold it).
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { toAscii } from './bundle-ascii.mjs';
import { bundleTransforms } from './bundle-transforms.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outdir = path.join(dist, 'bundle');

/**
 * Packages kept in node_modules, loaded by their own resolution at run time: native addons
 * (better-sqlite3), the development log format (pino-pretty, loaded only with LOG_FORMAT=pretty),
 * and ones only loaded on demand (the PostgreSQL driver, the AWS SDK, the password dictionary,
 * tsx). Every other package is bundled in, CommonJS ones included: a start then resolves, reads
 * and wraps none of their files. pino is bundled too: its transports' worker files (unused by
 * Stratus, which logs to a stream) would still be found in its folder (`__dirname` below).
 */
const EXTERNAL = new Set(['better-sqlite3', 'pino-pretty', 'pg', 'zxcvbn', 'tsx']);
const isExternal = (pkg) => EXTERNAL.has(pkg) || pkg.startsWith('@aws-sdk/');

const packageOf = (spec) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];

/**
 * A bundled CommonJS package file that finds files beside itself (`__dirname`: the API
 * reference's page and assets) gets its own folder back, found at run time where Node finds the
 * package (`require.resolve` of its package.json: the repository's node_modules, or the one an
 * installed Stratus shares with its neighbours).
 */
const packageDirs = {
  name: 'package-dirname',
  setup(b) {
    b.onLoad({ filter: /node_modules.*\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(text)) return undefined;
      const at = args.path.lastIndexOf(`${path.sep}node_modules${path.sep}`);
      const inPkg = args.path.slice(at + '/node_modules/'.length).split(path.sep);
      const pkg = inPkg[0].startsWith('@') ? inPkg.slice(0, 2) : inPkg.slice(0, 1);
      const rel = inPkg.slice(pkg.length);
      const base = `require('node:path').join(require('node:path').dirname(require.resolve(${JSON.stringify(`${pkg.join('/')}/package.json`)}))`;
      const dir = `${base}, ${
        rel
          .slice(0, -1)
          .map((x) => JSON.stringify(x))
          .join(', ') || "'.'"
      })`;
      const file = `${base}, ${rel.map((x) => JSON.stringify(x)).join(', ')})`;
      return {
        contents: text.replace(/\b__dirname\b/g, dir).replace(/\b__filename\b/g, file),
        loader: 'js',
      };
    });
  },
};

/**
 * Each compiled file's `import.meta.url`, rewritten relative to the bundle: the bundle is
 * CommonJS (no `import.meta`), so the bundle's own URL comes from its `__filename`.
 */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const rel = `./${path.relative(outdir, args.path).split(path.sep).join('/')}`;
      return {
        contents: text.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(rel)}, __stratusBundleUrl).href`,
        ),
        loader: 'js',
      };
    });
  },
};

const externals = {
  name: 'externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || isExternal(packageOf(args.path))) {
        return { path: args.path, external: true };
      }
      return undefined;
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [path.join(dist, 'cli.js')],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: path.join(outdir, 'cli.cjs'),
  logLevel: 'warning',
  // `require.resolve` of a bundled package's package.json is meant: packageDirs finds the
  // package's folder at run time that way.
  logOverride: { 'require-resolve-not-external': 'silent' },
  plugins: [ownUrls, bundleTransforms, packageDirs, externals],
  // `import()` becomes `require`: a module inside the bundle is still evaluated only when first
  // imported, and the external packages left to import this way all have CommonJS entries.
  supported: { 'dynamic-import': false },
  // Without the indentation, spaces and comments: 4.0 MB instead of 5.9. A start reads the whole
  // text and V8 keeps it, so each megabyte costs page faults (about 12 us a page on this
  // machine) as well as reading; loading the bundle took about 20 ms less (docs/performance.md,
  // ten loads each in turns; a first series of whole starts, -55 ms, was in a noisy phase). Names are
  // kept, so a stack trace still names each function, and lines are cut near 160 characters, so
  // the place a trace gives can be read in the file.
  minifyWhitespace: true,
  lineLimit: 160,
  banner: {
    js: "'use strict';\nvar __stratusBundleUrl = require('node:url').pathToFileURL(__filename).href;",
  },
});
{
  // ASCII only, so that V8 holds the source in one byte a character (bin/bundle-ascii.mjs).
  const file = path.join(outdir, 'cli.cjs');
  const text = fs.readFileSync(file, 'utf8');
  const ascii = await toAscii(text);
  // Written as the module function Node would wrap it in (bin/run-bundle.js compiles it as it
  // is); the first line keeps its code after the wrapper's opening, as Node's own wrapping does.
  fs.writeFileSync(file, Module.wrap(ascii));
}
const size = fs.statSync(path.join(outdir, 'cli.cjs')).size;
process.stdout.write(
  `dist/bundle/cli.cjs: the server in one file (${(size / 1e6).toFixed(1)} MB)\n`,
);
