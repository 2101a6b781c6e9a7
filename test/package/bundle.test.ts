import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript of bin/, without types
import { toAscii } from '../../bin/bundle-ascii.mjs';
// @ts-expect-error: plain JavaScript of bin/, without types
import { bundleTransforms } from '../../bin/bundle-transforms.mjs';
// @ts-expect-error: plain JavaScript of bin/, without types
import { cacheFileOf, compileBundle, runBundle } from '../../bin/run-bundle.js';

interface Loaded {
  exports: Record<string, unknown>;
  cacheUsed: boolean;
  started: () => Promise<void>;
  finished: () => void;
}
const load = (file: string): Loaded => runBundle(file, { cacheAfterMs: 0 }) as Loaded;

let dir: string;
let bundle: string;
/** The bundle's cache for this process's Node options (bin/run-bundle.js). */
const cacheOf = (): string => cacheFileOf(bundle) as string;
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
    expect(statSync(cacheOf()).size).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(['cli.cjs', path.basename(cacheOf())].sort());
  });

  it('runBundle: a server stopped before its cache was due writes it as the CLI returns', () => {
    const loaded = runBundle(bundle, { cacheAfterMs: 60_000 }) as Loaded;
    void loaded.started();
    loaded.finished();
    expect(statSync(cacheOf()).size).toBeGreaterThan(0);
    expect(load(bundle).cacheUsed).toBe(true);
  });

  it('runBundle: a CLI command that starts no server writes no cache', () => {
    load(bundle).finished();
    expect(readdirSync(dir)).toEqual(['cli.cjs']);
  });

  it('runBundle: the next start takes the cache V8 made and does not write it again', async () => {
    await load(bundle).started();
    const made = readFileSync(cacheOf());
    const next = load(bundle);
    expect(next.cacheUsed).toBe(true);
    expect((next.exports.main as (n: number) => number)(2)).toBe(4);
    writeFileSync(cacheOf(), made); // the same bytes, a new mtime
    const before = statSync(cacheOf()).mtimeMs;
    await next.started();
    expect(statSync(cacheOf()).mtimeMs).toBe(before);
  });

  it('runBundle: the cache written starts its data at a multiple of 8 bytes (V8 takes it in place), and one written without the padding is still taken', async () => {
    await load(bundle).started();
    const made = readFileSync(cacheOf());
    const eol = made.indexOf(10);
    expect((eol + 1) % 8).toBe(0);
    expect(made.subarray(0, eol).toString('latin1')).toMatch(/^\d+:\d+:[\d.]+:\d+ *$/);
    // The first line as an earlier version wrote it: no spaces before its end.
    const bare = made.subarray(0, eol).toString('latin1').trimEnd();
    writeFileSync(cacheOf(), Buffer.concat([Buffer.from(`${bare}\n`), made.subarray(eol + 1)]));
    const next = load(bundle);
    expect(next.cacheUsed).toBe(true);
    expect((next.exports.main as (n: number) => number)(3)).toBe(6);
  });

  it('runBundle: a cache V8 rejects (another bundle or V8) is made again by the next server', async () => {
    writeFileSync(cacheOf(), Buffer.from('not a code cache'));
    const rejected = load(bundle);
    expect(rejected.cacheUsed).toBe(false);
    expect((rejected.exports.main as (n: number) => number)(1)).toBe(2);
    await rejected.started();
    expect(load(bundle).cacheUsed).toBe(true);
  });

  it('runBundle: a cache made for another build of the bundle, even of the same length, is not used', async () => {
    await load(bundle).started();
    const text = readFileSync(bundle, 'utf8');
    const other = text.replace('x * 2', 'x * 3');
    expect(other.length).toBe(text.length);
    writeFileSync(`${bundle}.new`, other);
    renameSync(`${bundle}.new`, bundle); // as a build writes it: a new file
    const next = load(bundle);
    expect(next.cacheUsed).toBe(false);
    expect((next.exports.main as (n: number) => number)(2)).toBe(6);
    await next.started();
    expect(load(bundle).cacheUsed).toBe(true);
  });

  it('runBundle: a cache damaged on disk after it was written is not used and is made again', async () => {
    await load(bundle).started();
    const made = readFileSync(cacheOf());
    const damaged = Buffer.from(made);
    const at = made.indexOf(10) + 1 + Math.floor((made.length - made.indexOf(10)) / 2);
    damaged[at] = (damaged[at] ?? 0) ^ 0xff; // one byte of V8's data flipped, the first line intact
    writeFileSync(cacheOf(), damaged);
    const next = load(bundle);
    expect(next.cacheUsed).toBe(false);
    expect((next.exports.main as (n: number) => number)(5)).toBe(10);
    await next.started();
    expect(readFileSync(cacheOf()).equals(damaged)).toBe(false);
    expect(load(bundle).cacheUsed).toBe(true);
  });

  it('runBundle: a bundle written already wrapped, as the build writes it, runs as it is and keeps its line numbers', () => {
    const plain = readFileSync(bundle, 'latin1');
    writeFileSync(bundle, Module.wrap(`${plain}\nexports.line = () => new Error().stack;`));
    const loaded = load(bundle);
    expect((loaded.exports.main as (n: number) => number)(4)).toBe(8);
    // Wrapped twice, the module would export nothing; the line is the sixth, as in the plain file.
    expect((loaded.exports.line as () => string)()).toContain('cli.cjs:6:');
  });

  it('runBundle: a bundle with text outside ASCII is read as UTF-8, its strings intact', () => {
    const text = "exports.main = () => 'café — 😀';";
    writeFileSync(bundle, text, 'utf8');
    expect((load(bundle).exports.main as () => string)()).toBe('café — 😀');
  });

  it('runBundle: the cache, read into the memory the source was read into, leaves the source intact', async () => {
    // Over 1 MB, so that Node keeps the text outside V8's heap (a copy), ASCII and UTF-8 both; a
    // function not compiled before the cache was made compiles from that text afterwards.
    for (const mark of ['ascii', 'caf\u00e9']) {
      const filler = 'x'.repeat(1_200_000);
      writeFileSync(
        bundle,
        `exports.main = () => '${mark}';\nexports.late = function late() { return '${filler}'.length + '${mark}'; };`,
        'utf8',
      );
      rmSync(cacheOf(), { force: true });
      expect((load(bundle).exports.main as () => string)()).toBe(mark);
      await load(bundle).started();
      const next = load(bundle);
      expect(next.cacheUsed).toBe(true);
      const late = next.exports.late as () => string;
      expect(late()).toBe(`1200000${mark}`);
      expect(String(late)).toBe(`function late() { return '${filler}'.length + '${mark}'; }`);
    }
  });

  it('compileBundle: compiles without running the bundle until run() is called', () => {
    writeFileSync(
      bundle,
      `globalThis.__stratusBundleRuns = (globalThis.__stratusBundleRuns ?? 0) + 1;`,
    );
    const g = globalThis as { __stratusBundleRuns?: number };
    delete g.__stratusBundleRuns;
    const compiled = compileBundle(bundle) as { cacheUsed: boolean; run: () => Loaded };
    expect(g.__stratusBundleRuns).toBeUndefined();
    compiled.run();
    expect(g.__stratusBundleRuns).toBe(1);
    delete g.__stratusBundleRuns;
  });

  it("cacheFileOf: each set of Node options has a cache of its own, so starts of one kind do not replace the other's", async () => {
    const runner = path.join(dir, 'runner.cjs');
    writeFileSync(
      runner,
      `const { runBundle } = require(${JSON.stringify(path.resolve('bin/run-bundle.js'))});
      const loaded = runBundle(process.argv[2], { cacheAfterMs: 0 });
      void loaded.started();
      loaded.finished(); // a server stopping: the cache is written now
      console.log(JSON.stringify({ used: loaded.cacheUsed }));`,
    );
    const { execFileSync } = await import('node:child_process');
    const start = (flags: string[]) =>
      JSON.parse(
        execFileSync(process.execPath, [...flags, runner, bundle], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH },
        }),
      ) as { used: boolean };
    const flagged = ['--max-semi-space-size=16'];
    expect(start([])).toEqual({ used: false });
    expect(start(flagged)).toEqual({ used: false });
    // Each kept its own: neither start compiles again.
    expect(start([])).toEqual({ used: true });
    expect(start(flagged)).toEqual({ used: true });
    const caches = readdirSync(dir).filter((f) => f.startsWith('cli.cjs.cache'));
    expect(caches).toHaveLength(2);
    expect(caches).toContain('cli.cjs.cache');
  });

  it('runBundle: a cache that cannot be written leaves the start as it was and no temporary file', async () => {
    mkdirSync(cacheOf()); // a folder where the file would go
    const loaded = load(bundle);
    expect(loaded.cacheUsed).toBe(false);
    await loaded.started();
    expect(readdirSync(dir).sort()).toEqual(['cli.cjs', path.basename(cacheOf())].sort());
    expect(statSync(cacheOf()).isDirectory()).toBe(true);
  });
});

/** One package built alone as the bundle builds it (bin/bundle-transforms.mjs), CommonJS. */
async function bundled(pkg: string, out: string): Promise<string> {
  await build({
    entryPoints: [createRequire(import.meta.url).resolve(pkg)],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    outfile: out,
    logLevel: 'silent',
    plugins: [bundleTransforms],
  });
  return out;
}

describe('the bundle router (bin/bundle-transforms.mjs)', () => {
  type Router = {
    on: (m: string, p: string, ...rest: [() => void] | [object, () => void]) => void;
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
    const out = await bundled('find-my-way', path.join(dir, 'router.cjs'));
    const require = createRequire(import.meta.url);
    const make = (lib: (o?: object) => Router) => {
      const r = lib();
      ROUTES.forEach((p, i) => {
        const handler = () => i;
        Object.defineProperty(handler, 'name', { value: `route${i}` });
        r.on('GET', p, handler);
      });
      // Routes with constraints: the node's constraint matcher is compiled at its first call.
      r.on('GET', '/v4/regions', { constraints: { host: 'a.example' } }, function hostA() {});
      r.on('GET', '/v4/profile', { constraints: { version: '1.2.0' } }, function v120() {});
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
    const constrained = [
      ['/v4/regions', { host: 'a.example' }],
      ['/v4/regions', { host: 'b.example' }],
      ['/v4/regions', {}],
      ['/v4/profile', { version: '1.x' }],
      ['/v4/profile', { version: '2.x' }],
      ['/v4/profile', {}],
    ] as const;
    type Find = (m: string, p: string, c: object) => { handler: () => void } | null;
    for (const [p, c] of constrained) {
      const a = (lazy.find as Find)('GET', p, c);
      const b = (own.find as Find)('GET', p, c);
      expect({ p, c, handler: a?.handler.name }).toEqual({ p, c, handler: b?.handler.name });
    }
  });
});

describe('packages edited by the bundle (bin/bundle-transforms.mjs)', () => {
  it('fastify in the bundle: loads HTTP/2 and HTTPS only when such a server is made', async () => {
    const out = await bundled('fastify', path.join(dir, 'fastify.cjs'));
    const probe = `
      const loaded = () => ['http2', 'https'].filter((m) => process.moduleLoadList.includes('NativeModule ' + m));
      const fastify = require(${JSON.stringify(out)});
      const atLoad = loaded();
      const plain = fastify();
      plain.get('/', async () => ({ ok: true }));
      plain.inject('/').then(async (r) => {
        const afterPlain = loaded();
        const h2 = fastify({ http2: true });
        await h2.ready();
        console.log(JSON.stringify({ atLoad, afterPlain, status: r.statusCode, h2: h2.server.constructor.name, end: loaded() }));
      });`;
    const { execFileSync } = await import('node:child_process');
    const result = JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }));
    expect(result).toEqual({
      atLoad: [],
      afterPlain: [],
      status: 200,
      h2: 'Http2Server',
      end: ['http2'],
    });
  });

  it('fastify in the bundle: completes each route at preReady, not in an avvio step of its own, and answers as the library does', async () => {
    const out = await bundled('fastify', path.join(dir, 'fastify-routes.cjs'));
    type App = {
      register: (p: (s: App) => Promise<void>, o?: object) => unknown;
      get: (url: string, o: object | (() => unknown), h?: (req: never) => unknown) => unknown;
      addHook: (name: string, h: (...a: never[]) => unknown) => unknown;
      setErrorHandler: (h: (err: Error, req: unknown, reply: Reply) => unknown) => unknown;
      setNotFoundHandler: (o: object, h: (req: unknown, reply: Reply) => unknown) => unknown;
      decorateRequest: (name: string, v: unknown) => unknown;
      after: (fn: () => void) => unknown;
      ready: () => Promise<unknown>;
      inject: (o: string) => Promise<{ statusCode: number; body: string; headers: object }>;
      close: () => Promise<unknown>;
      [k: string]: unknown;
    };
    type Reply = {
      code: (n: number) => Reply;
      header: (k: string, v: string) => Reply;
      send: (b: unknown) => unknown;
      callNotFound: () => unknown;
    };
    /** One app, its routes declared before the handlers and hooks of their scope. */
    const scenario = async (fastify: (o?: object) => App) => {
      const app = fastify();
      const steps: string[] = [];
      app.get('/root-throws', () => {
        throw new Error('root');
      });
      app.get('/route-handler', {
        errorHandler: (err: Error, _req: unknown, reply: Reply) =>
          reply.code(418).send({ own: err.message }),
        handler: () => {
          throw new Error('mine');
        },
      });
      // Declared after the routes above, before anything lets the scope load: they apply to them.
      app.addHook('onSend', async (_req: unknown, reply: Reply, payload: unknown) => {
        reply.header('x-root', 'yes');
        return payload;
      });
      app.setErrorHandler((err, _req, reply) => reply.code(500).send({ root: err.message }));
      await app.register(async (s: App) => {
        s.get('/scoped/throws', () => {
          throw new Error('scoped');
        });
        s.get('/scoped/missing', (_req: unknown, reply?: Reply) => reply?.callNotFound());
        s.get('/scoped/decorated', (req: { flag?: string }) => ({ flag: req.flag }));
        s.get('/scoped/schema', {
          schema: { response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } },
          handler: () => ({ n: 7, dropped: true }),
        });
        // Declared after the routes above: they still apply to them.
        s.decorateRequest('flag', 'set');
        s.addHook('onRequest', async (_req: unknown, reply: Reply) => {
          reply.header('x-scope', 'yes');
        });
        s.setErrorHandler((err, _req, reply) => reply.code(409).send({ scoped: err.message }));
        s.setNotFoundHandler({}, (_req, reply) => reply.code(404).send({ scopedMissing: true }));
        s.after(() => steps.push('scope after'));
      });
      await app.ready();
      const answers = [];
      for (const url of [
        '/root-throws',
        '/route-handler',
        '/scoped/throws',
        '/scoped/missing',
        '/scoped/decorated',
        '/scoped/schema',
        '/scoped/nothing',
        '/nothing',
      ]) {
        const r = await app.inject(url);
        const h = r.headers as Record<string, string>;
        answers.push({
          url,
          status: r.statusCode,
          body: r.body,
          scope: h['x-scope'],
          root: h['x-root'],
        });
      }
      await app.close();
      return { steps, answers };
    };
    const edited = await scenario(createRequire(import.meta.url)(out));
    const published = await scenario((await import('fastify')).default as never);
    expect(edited).toEqual(published);
    // The scope's handlers and hooks, declared after its routes, are theirs.
    expect(edited.answers.find((a) => a.url === '/scoped/throws')).toMatchObject({
      status: 409,
      scope: 'yes',
      root: 'yes',
    });
    // No avvio step per route: the context is completed by a preReady listener of its own.
    expect(readFileSync(out, 'utf8')).not.toMatch(
      /this\.after\(\(notHandledErr, done\d*\) => \{\s*context\.errorHandler/,
    );
    expect(readFileSync(out, 'utf8')).toMatch(
      /avvio\.once\("preReady", \(\) => \{\s*context\.errorHandler/,
    );
  });

  it('fastify in the bundle: a route takes the error handler its scope has at preReady, even one set after an awaited register (the one difference)', async () => {
    const out = await bundled('fastify', path.join(dir, 'fastify-late.cjs'));
    type Late = {
      get: (url: string, h: () => unknown) => unknown;
      register: (p: () => Promise<void>) => Promise<unknown>;
      setErrorHandler: (
        h: (
          e: Error,
          q: unknown,
          r: { code: (n: number) => { send: (b: unknown) => unknown } },
        ) => unknown,
      ) => unknown;
      inject: (u: string) => Promise<{ statusCode: number }>;
      close: () => Promise<unknown>;
    };
    const statusOf = async (fastify: () => Late) => {
      const app = fastify();
      app.get('/', () => {
        throw new Error('x');
      });
      await app.register(async () => {});
      app.setErrorHandler((_e, _q, reply) => reply.code(503).send({}));
      const { statusCode } = await app.inject('/');
      await app.close();
      return statusCode;
    };
    // The library completed the route when the await let its scope load: the default handler.
    expect(await statusOf((await import('fastify')).default as never)).toBe(500);
    expect(await statusOf(createRequire(import.meta.url)(out))).toBe(503);
  });

  it('json-schema-resolver in the bundle: loads debug (and tty) only when DEBUG is set, and resolves as published', async () => {
    const out = await bundled('json-schema-resolver', path.join(dir, 'resolver.cjs'));
    const probe = (lib: string) => `
      const RefResolver = require(${JSON.stringify(lib)});
      const ref = RefResolver({ clone: true });
      const resolved = ref.resolve({ $id: 'a', type: 'object', properties: { b: { $ref: 'b#' } } }, {
        externalSchemas: [{ $id: 'b', type: 'string' }],
      });
      console.log(JSON.stringify({ tty: process.moduleLoadList.includes('NativeModule tty'), resolved }));`;
    const { execFileSync } = await import('node:child_process');
    const run = (lib: string, env: Record<string, string>) =>
      JSON.parse(
        execFileSync(process.execPath, ['-e', probe(lib)], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, ...env },
        }),
      ) as { tty: boolean; resolved: unknown };
    const published = createRequire(import.meta.url).resolve('json-schema-resolver');
    const quiet = run(out, {});
    expect(quiet.tty).toBe(false);
    expect(quiet.resolved).toEqual(run(published, {}).resolved);
    expect(run(out, { DEBUG: 'json-schema-resolver' }).tty).toBe(true);
  });

  it('avvio in the bundle: its debug log does nothing unless NODE_DEBUG names avvio, and then logs as published', async () => {
    const out = await bundled('avvio/lib/debug.js', path.join(dir, 'avvio-debug.cjs'));
    const probe = (lib: string) =>
      `const { debug } = require(${JSON.stringify(lib)}); console.log(debug.name); debug('loading %s', 'a plugin');`;
    const { spawnSync } = await import('node:child_process');
    const run = (lib: string, env: Record<string, string>) => {
      const r = spawnSync(process.execPath, ['-e', probe(lib)], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
      });
      return { name: r.stdout.trim(), logged: r.stderr };
    };
    const published = createRequire(import.meta.url).resolve('avvio/lib/debug.js');
    expect(run(out, {})).toEqual({ name: 'avvioDebugOff', logged: '' });
    expect(run(published, {}).logged).toBe('');
    const loud = run(out, { NODE_DEBUG: 'avvio' });
    expect(loud.logged).toMatch(/^AVVIO \d+: loading a plugin\n$/);
    expect(loud.logged.replace(/\d+/, '')).toBe(
      run(published, { NODE_DEBUG: 'avvio' }).logged.replace(/\d+/, ''),
    );
  });

  it('@fastify/static in the bundle: serves files without a walk (wildcard) and with one (glob, loaded then)', async () => {
    const out = await bundled('@fastify/static', path.join(dir, 'static.cjs'));
    const root = path.join(dir, 'public');
    mkdirSync(root);
    writeFileSync(path.join(root, 'a.txt'), 'hello');
    const fastifyStatic = createRequire(import.meta.url)(out);
    const { default: Fastify } = await import('fastify');
    for (const wildcard of [true, false]) {
      const app = Fastify();
      await app.register(fastifyStatic, { root, prefix: '/files/', wildcard });
      const r = await app.inject('/files/a.txt');
      expect({ wildcard, status: r.statusCode, body: r.body }).toEqual({
        wildcard,
        status: 200,
        body: 'hello',
      });
      expect((await app.inject('/files/b.txt')).statusCode).toBe(404);
      await app.close();
    }
  });

  it('@fastify/swagger in the bundle: the documents are the ones of the library as published, shared schemas of every scope included', async () => {
    const out = await bundled('@fastify/swagger', path.join(dir, 'swagger.cjs'));
    const { default: Fastify } = await import('fastify');
    const docs: string[][] = [];
    for (const swagger of [
      createRequire(import.meta.url)(out),
      (await import('@fastify/swagger')).default,
    ]) {
      const app = Fastify();
      await app.register(swagger, { openapi: { info: { title: 't', version: '1' } } });
      app.addSchema({ $id: 'Top', type: 'object', properties: { a: { type: 'string' } } });
      app.get(
        '/v4/things/:id',
        { schema: { params: { type: 'object', properties: { id: { type: 'integer' } } } } },
        async () => ({}),
      );
      // A schema shared in a scope of its own, used by that scope's route.
      await app.register(async (scope) => {
        scope.addSchema({ $id: 'Widget', type: 'object', properties: { n: { type: 'integer' } } });
        scope.get(
          '/v4/widgets',
          { schema: { response: { 200: { $ref: 'Widget#' } } } },
          async () => ({ n: 1 }),
        );
      });
      await app.ready();
      const doc = app as unknown as { swagger: (o?: object) => unknown };
      docs.push([String(doc.swagger({ yaml: true })), JSON.stringify(doc.swagger())]);
      await app.close();
    }
    expect(docs[0]?.[0]).toContain('/v4/things/{id}');
    expect(docs[0]?.[1]).toContain('Widget');
    expect(docs[0]?.[1]).toContain('Top');
    expect(docs[0]).toEqual(docs[1]);
  });
});

describe('the bundle in ASCII (bin/bundle-ascii.mjs)', () => {
  const ascii = (text: string) => toAscii(text) as Promise<string>;

  it('toAscii: escapes the characters outside ASCII of comments, and the program is the same', async () => {
    const text = `'use strict';
// A comment — with a dash, an arrow → and a pair 🯰 (astral).
/** Doc … */
exports.x = "\\u2014";
exports.re = /[\\u{1FBF0}-\\u{1FBF9}]/u;
`;
    const out = await ascii(text);
    expect(/[^\x20-\x7e\n]/.test(out)).toBe(false);
    expect(out).toContain(
      'A comment \\u2014 with a dash, an arrow \\u2192 and a pair \\ud83e\\udff0',
    );
    // Loaded as a module, the same values as before.
    const load = (src: string) => {
      const m = { exports: {} as Record<string, unknown> };
      new Function('module', 'exports', src)(m, m.exports);
      return m.exports;
    };
    const [a, b] = [load(text), load(out)];
    expect(b.x).toBe(a.x);
    expect(String(b.re)).toBe(String(a.re));
    expect((b.re as RegExp).test('\u{1FBF3}')).toBe(true);
    // A V8 string of ASCII text takes one byte a character: the reason for all this.
    expect(out.length).toBe(Buffer.byteLength(out));
  });

  it('toAscii: leaves a text already in ASCII as it is', async () => {
    const text = "'use strict';\n// plain\nexports.a = 1;\n";
    expect(await ascii(text)).toBe(text);
  });

  it('toAscii: refuses a character outside ASCII that is code (a raw template string)', async () => {
    await expect(ascii('exports.a = String.raw`\u2014`;\n')).rejects.toThrow(/not of a comment/);
  });
});
