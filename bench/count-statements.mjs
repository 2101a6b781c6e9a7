// Preloaded into a Stratus child process by the bench (`node --import ./bench/count-statements.mjs`)
// to count the statements the server sends to its database: on PostgreSQL every
// `pg.Client#query` (one round trip each, BEGIN and COMMIT included), on SQLite every execution
// of a prepared statement (`run`, `get`, `all`, `iterate`). On SIGUSR2 the counts so far are
// written as JSON to BENCH_COUNT_FILE. Plain JavaScript: the server runs the compiled build.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const file = process.env.BENCH_COUNT_FILE;
const counts = { statements: 0, begin: 0, commit: 0, snapshot: 0, pool: null };
const require = createRequire(path.join(process.cwd(), 'package.json'));

function note(text) {
  counts.statements++;
  const head = typeof text === 'string' ? text.trimStart().slice(0, 8).toLowerCase() : '';
  if (head.startsWith('begin')) counts.begin++;
  else if (head.startsWith('commit')) counts.commit++;
}

if ((process.env.DATABASE_URL ?? '').startsWith('postgres')) {
  const pg = require('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function counted(config, ...rest) {
    note(typeof config === 'string' ? config : config?.text);
    return query.call(this, config, ...rest);
  };
  const Pool = pg.Pool;
  pg.Pool = class CountedPool extends Pool {
    constructor(options) {
      super(options);
      counts.pool = {
        max: this.options.max,
        idleTimeoutMillis: this.options.idleTimeoutMillis ?? null,
        connectionTimeoutMillis: this.options.connectionTimeoutMillis ?? null,
      };
    }
  };
} else {
  const SQLite = require('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const original = proto[name];
    proto[name] = function counted(...args) {
      note(this.source);
      return original.apply(this, args);
    };
  }
}

process.on('SIGUSR2', () => {
  if (file) writeFileSync(file, JSON.stringify({ ...counts, at: Date.now() }));
});
