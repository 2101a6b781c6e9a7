// Edits the bundle (bin/build-bundle.mjs) makes to a few packages' files as it inlines them, so
// that a start does not pay for work its first requests do not need. Each edit names the text
// it replaces; a text not found fails the build (a new version of the package changed it: look
// at the edit again) rather than let the start grow slower unnoticed. The tests build each
// edited package alone and compare it with the package as published (test/package/bundle.test.ts).
import fs from 'node:fs';
import path from 'node:path';

/** `[from, to]` pairs per file, keyed by the file's path under node_modules. */
export const TRANSFORMS = {
  // find-my-way compiles, with `new Function`, a matcher for each static node of the router's
  // tree and a params builder for each route as the route is added: a few thousand functions for
  // the ~700 routes at every start (generated code is in no code cache), most of them for routes
  // no request of the process takes. Here each node's and each route's slot first holds a
  // function that compiles the library's own, puts it in its place and calls it: every lookup
  // after the first runs the library's compiled function, as before.
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
    // The constraint matcher of a route's node, compiled again as each handler is added (and
    // only ever called for a request with constraints to match: none, in Stratus), is compiled
    // at its first call, from the node's handlers at that moment: what the last compile saw.
    [
      'this._compileGetHandlerMatchingConstraints(constrainer, constraints)',
      'this._getHandlerMatchingConstraints = function lazyGetHandlerMatchingConstraints (derivedConstraints) {\n        this._compileGetHandlerMatchingConstraints(constrainer)\n        return this._getHandlerMatchingConstraints(derivedConstraints)\n      }',
    ],
  ],
  // Fastify completes each route (its error handler, hooks, 404 context, validators and
  // serializers) in an avvio `after` step of the route's own, which registers a preReady listener:
  // for ~460 routes, ~460 avvio plugins with their queues, timers and ticks, about 30 ms of a
  // start. Here the route's preReady listener does all of it, when every plugin has loaded (as
  // Fastify already does for not-found handlers). The one difference: a scope's error handler,
  // hooks or settings changed after an `await` that let the scope's routes load before them now
  // apply to those routes too (Stratus sets its error handler and hooks before it declares any
  // route). Both are tested against the library as published (test/package/bundle.test.ts).
  'fastify/lib/route.js': [
    [
      '      this.after((notHandledErr, done) => {\n        // Send context async',
      "      avvio.once('preReady', () => {\n        // Send context async",
    ],
    [
      "        avvio.once('preReady', () => {\n          for (const hook of lifecycleHooks) {",
      '        ;(() => {\n          for (const hook of lifecycleHooks) {',
    ],
    [
      '          }\n        })\n\n        done(notHandledErr)\n      })',
      '          }\n        })()\n      })',
    ],
  ],
  // Fastify loads Node's HTTPS and HTTP/2 servers (and TLS under them) at its start; Stratus
  // serves plain HTTP/1.1. They are loaded where Fastify makes such a server.
  'fastify/lib/server.js': [
    ["const https = require('node:https')\n", ''],
    ["const http2 = require('node:http2')\n", ''],
    ['http2.createSecureServer(', "require('node:http2').createSecureServer("],
    ['http2.createServer(', "require('node:http2').createServer("],
    ['https.createServer(', "require('node:https').createServer("],
  ],
  // @fastify/static loads glob at its start, for `wildcard: false` alone (a walk of the folder
  // at registration); the console's assets are served with `wildcard: true`.
  // @fastify/swagger loads the YAML library at its start, for the YAML form of the documents
  // alone: it is loaded when one is first asked for.
  '@fastify/swagger/lib/spec/openapi/index.js': [
    [
      "const yaml = require('yaml')",
      "const yaml = { stringify: (...args) => require('yaml').stringify(...args) }",
    ],
  ],
  '@fastify/swagger/lib/spec/swagger/index.js': [
    [
      "const yaml = require('yaml')",
      "const yaml = { stringify: (...args) => require('yaml').stringify(...args) }",
    ],
  ],
  // json-schema-resolver (under @fastify/swagger) loads `debug`, with supports-color and tty, for
  // messages printed only when DEBUG names a namespace: it is loaded only when DEBUG is set.
  'json-schema-resolver/ref-resolver.js': [
    [
      "const debug = require('debug')('json-schema-resolver')",
      "const debug = process.env.DEBUG ? require('debug')('json-schema-resolver') : () => {}",
    ],
  ],
  // avvio logs each step of each plugin through Node's `debuglog('avvio')`, whose logger, with
  // NODE_DEBUG not naming avvio, still gathers its arguments at every call: for the server's few
  // hundred plugins about 2.7 ms and 0.5 MB of a start. Here it is a function that does nothing
  // unless NODE_DEBUG names avvio (read at start, as Node reads it), and Node's logger otherwise.
  'avvio/lib/debug.js': [
    [
      "const debug = debuglog('avvio')",
      "const debug = debuglog('avvio').enabled ? debuglog('avvio') : function avvioDebugOff () {}",
    ],
  ],
  // @fastify/swagger gathers, when the server is ready, the shared schemas of every scope
  // registered (each scope's `getSchemas()`, a copy, for the server's few hundred scopes: 3.6 ms
  // in a profile of a start), for documents the start never writes. Here they are gathered when the
  // first document is (no schema can be added after ready, so the same ones).
  '@fastify/swagger/lib/util/add-hook.js': [
    [
      '    hookRun = true\n    for (const instance of instances) {',
      '    hookRun = true\n    done()\n  })\n\n  function collectSchemas () {\n    for (const instance of instances) {',
    ],
    ['    instances.length = 0\n    done()\n  })', '    instances.length = 0\n  }'],
    [
      "        throw new Error('.swagger() must be called after .ready()')\n      }\n",
      "        throw new Error('.swagger() must be called after .ready()')\n      }\n      collectSchemas()\n",
    ],
  ],
  '@fastify/static/index.js': [
    ["const { glob } = require('glob')", "const glob = (...args) => require('glob').glob(...args)"],
  ],
};

const keyOf = (file) => {
  const at = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  return at === -1
    ? undefined
    : file
        .slice(at + '/node_modules/'.length)
        .split(path.sep)
        .join('/');
};

/** The esbuild plugin that applies TRANSFORMS. */
export const bundleTransforms = {
  name: 'bundle-transforms',
  setup(b) {
    b.onLoad({ filter: /node_modules.*\.js$/ }, async (args) => {
      const key = keyOf(args.path);
      const edits = key === undefined ? undefined : TRANSFORMS[key];
      if (edits === undefined) return undefined;
      let text = await fs.promises.readFile(args.path, 'utf8');
      // This plugin answers for the file: the folder rewriting of build-bundle.mjs would not run.
      if (/\b__(dirname|filename)\b/.test(text)) throw new Error(`${key} uses __dirname`);
      for (const [from, to] of edits) {
        if (!text.includes(from)) throw new Error(`${key}: "${from}" not found`);
        text = text.replaceAll(from, to);
      }
      return { contents: text, loader: 'js' };
    });
  },
};
