import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript of bin/, without types
import { lazyRouter } from '../../bin/lazy-router.js';
// @ts-expect-error: plain JavaScript of bin/, without types
import { runBundle } from '../../bin/run-bundle.js';

interface Loaded {
  exports: Record<string, unknown>;
  cacheUsed: boolean;
  started: () => Promise<void>;
}
const load = (file: string): Loaded => runBundle(file, { cacheAfterMs: 0 }) as Loaded;

let dir: string;
let bundle: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'stratus-bundle-'));
  bundle = path.join(dir, 'cli.cjs');
  // A CommonJS file like the bundle: its own require, __filename and functions compiled lazily.
  writeFileSync(
    bundle,
    `'use strict';
const p = require('node:path');
function answer(x) { return x * 2; }
exports.main = (n) => answer(n);
exports.where = () => p.basename(__filename);`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundle code cache (bin/run-bundle.js)', () => {
  it('runBundle: a start without a cache runs the bundle and writes the cache once the server started', async () => {
    const first = load(bundle);
    expect(first.cacheUsed).toBe(false);
    expect((first.exports.main as (n: number) => number)(21)).toBe(42);
    expect((first.exports.where as () => string)()).toBe('cli.cjs');
    await first.started();
    expect(statSync(`${bundle}.cache`).size).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(['cli.cjs', 'cli.cjs.cache']);
  });

  it('runBundle: the next start takes the cache V8 made and does not write it again', async () => {
    await load(bundle).started();
    const made = readFileSync(`${bundle}.cache`);
    const next = load(bundle);
    expect(next.cacheUsed).toBe(true);
    expect((next.exports.main as (n: number) => number)(2)).toBe(4);
    writeFileSync(`${bundle}.cache`, made); // the same bytes, a new mtime
    const before = statSync(`${bundle}.cache`).mtimeMs;
    await next.started();
    expect(statSync(`${bundle}.cache`).mtimeMs).toBe(before);
  });

  it('runBundle: a cache V8 rejects (another bundle or V8) is made again by the next server', async () => {
    writeFileSync(`${bundle}.cache`, Buffer.from('not a code cache'));
    const rejected = load(bundle);
    expect(rejected.cacheUsed).toBe(false);
    expect((rejected.exports.main as (n: number) => number)(1)).toBe(2);
    await rejected.started();
    expect(load(bundle).cacheUsed).toBe(true);
  });

  it('runBundle: a cache that cannot be written leaves the start as it was and no temporary file', async () => {
    mkdirSync(`${bundle}.cache`); // a folder where the file would go
    const loaded = load(bundle);
    expect(loaded.cacheUsed).toBe(false);
    await loaded.started();
    expect(readdirSync(dir).sort()).toEqual(['cli.cjs', 'cli.cjs.cache']);
    expect(statSync(`${bundle}.cache`).isDirectory()).toBe(true);
  });
});

describe('the bundle router (bin/lazy-router.js)', () => {
  type Router = {
    on: (m: string, p: string, h: () => void) => void;
    find: (m: string, p: string) => { params: Record<string, string>; handler: () => void } | null;
    trees: Record<string, { staticChildrenNodes: { matchPrefix: { name: string } }[] }>;
  };
  const ROUTES = [
    '/v4/compute/instances',
    '/v4/compute/instances/:instanceId',
    '/v4/compute/instances/:instanceId/disks/:diskId',
    '/v4/compute/instances/:instanceId/configs',
    '/v4/compute/images',
    '/v4/compute/types/:typeId',
    '/v4/networking/ips/:address',
    '/v4/networking/firewalls/:firewallId/rules',
    '/v4/regions',
    '/v4/regions/:regionId/availability',
    '/v4/profile',
    '/v4/profile/tokens/:tokenId',
  ];
  const PATHS = [
    '/v4/compute/instances',
    '/v4/compute/instances/12',
    '/v4/compute/instances/12/disks/7',
    '/v4/compute/instances/12/configs',
    '/v4/compute/images',
    '/v4/compute/imagez',
    '/v4/compute/types/g6-nanode-1',
    '/v4/networking/ips/192.0.2.1',
    '/v4/networking/firewalls/3/rules',
    '/v4/networking/firewalls/3/rulez',
    '/v4/regions',
    '/v4/regions/us-east/availability',
    '/v4/profile',
    '/v4/profile/tokens/5',
    '/v4/prof',
    '/v4/regionsx',
  ];

  it('find-my-way in the bundle: compiles its matchers at their first use and routes exactly as the library does', async () => {
    const out = path.join(dir, 'router.cjs');
    await build({
      entryPoints: [createRequire(import.meta.url).resolve('find-my-way')],
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: out,
      logLevel: 'silent',
      plugins: [lazyRouter],
    });
    const require = createRequire(import.meta.url);
    const make = (lib: (o?: object) => Router) => {
      const r = lib();
      ROUTES.forEach((p, i) => {
        const handler = () => i;
        Object.defineProperty(handler, 'name', { value: `route${i}` });
        r.on('GET', p, handler);
      });
      return r;
    };
    const lazy = make(require(out) as (o?: object) => Router);
    const own = make(require('find-my-way') as (o?: object) => Router);
    // Nothing compiled yet: the root's static children still hold the lazy matcher.
    const names = (r: Router) =>
      Object.values(r.trees).flatMap((t) => t.staticChildrenNodes.map((n) => n.matchPrefix.name));
    expect(names(lazy)).toContain('lazyPrefixMatch');
    expect(names(own)).not.toContain('lazyPrefixMatch');
    for (const p of [...PATHS, ...PATHS]) {
      const a = lazy.find('GET', p);
      const b = own.find('GET', p);
      expect({ p, handler: a?.handler.name, params: { ...a?.params } }).toEqual({
        p,
        handler: b?.handler.name,
        params: { ...b?.params },
      });
    }
    expect(names(lazy)).not.toContain('lazyPrefixMatch');
  });
});
