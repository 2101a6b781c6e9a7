// An esbuild plugin of the bundle (bin/build-bundle.js): find-my-way's generated functions made
// at their first use rather than as each route is added.
import fs from 'node:fs';
import path from 'node:path';

/**
 * find-my-way compiles, with `new Function`, a matcher for each static node of the router's tree
 * and a params builder for each route as the route is added: a few thousand functions for the
 * ~700 routes, at every start (generated code is never in a code cache), most of them for routes
 * no request of the process will take. In the bundle they are compiled at their first use
 * instead: each node's and each route's slot holds a function that compiles the real one, puts
 * it in its place and calls it. The compiled functions and every lookup after the first are
 * the library's own. Each replaced text must be found: a new version of the package that
 * changed it fails the build here rather than start slower unnoticed.
 */
export const LAZY_ROUTER = {
  'find-my-way/lib/node.js': [
    [
      'function compilePrefixMatch (prefix) {',
      'function lazyPrefixMatch (path, i) {\n  this.matchPrefix = compilePrefixMatch(this.prefix)\n  return this.matchPrefix(path, i)\n}\n\nfunction compilePrefixMatch (prefix) {',
    ],
    [
      'this.matchPrefix = kind === NODE_TYPES.STATIC ? compilePrefixMatch(prefix) : null',
      'this.matchPrefix = kind === NODE_TYPES.STATIC ? lazyPrefixMatch : null',
    ],
    ['this.matchPrefix = compilePrefixMatch(childPrefix)', 'this.matchPrefix = lazyPrefixMatch'],
  ],
  'find-my-way/lib/handler-storage.js': [
    [
      '_createParamsObject: this._compileCreateParamsObject(params)',
      '_createParamsObject: lazyCreateParamsObject',
    ],
    [
      'class HandlerStorage {',
      'function lazyCreateParamsObject (param0, param1, param2, param3, extraParams) {\n  this._createParamsObject = HandlerStorage.prototype._compileCreateParamsObject(this.params)\n  return this._createParamsObject(param0, param1, param2, param3, extraParams)\n}\n\nclass HandlerStorage {',
    ],
  ],
};
export const lazyRouter = {
  name: 'lazy-router-functions',
  setup(b) {
    b.onLoad({ filter: /find-my-way[\\/]lib[\\/](node|handler-storage)\.js$/ }, async (args) => {
      const key = `find-my-way/lib/${path.basename(args.path)}`;
      let text = await fs.promises.readFile(args.path, 'utf8');
      for (const [from, to] of LAZY_ROUTER[key]) {
        if (!text.includes(from)) throw new Error(`${key}: "${from}" not found`);
        text = text.replaceAll(from, to);
      }
      return { contents: text, loader: 'js' };
    });
  },
};
