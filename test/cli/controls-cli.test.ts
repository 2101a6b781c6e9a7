import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';
import { childEnv, type Proc, SERVER_READY, start } from '../scale/processes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/stratus.js');
const OPERATOR = `operator-${randomBytes(8).toString('hex')}`;

async function freshStore(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `ctl_${randomBytes(6).toString('hex')}`;
    const url = await createDatabase(admin, name);
    return { env: { DATABASE_URL: url }, drop: () => dropDatabase(admin, name) };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-ctl-'));
  return {
    env: { DATABASE_URL: `sqlite:${path.join(dir, 'stratus.db')}` },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: childEnv({ LOG_LEVEL: 'silent', ...env }),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

async function api(base: string, token: string, method: string, url: string, body?: unknown) {
  const r = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, body: (await r.json()) as any };
}

describe('emulator controls from the command line', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const procs: Proc[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
    for (const c of cleanups) await c();
  });

  it('STRATUS_SEED: the first start creates the seed accounts, users, tokens and entities; state reset brings them back; export and import round-trip', async () => {
    const store = await freshStore();
    cleanups.push(store.drop);
    const dir = await mkdtemp(path.join(tmpdir(), 'stratus-seedfile-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const seed = path.join(dir, 'seed.json');
    await writeFile(
      seed,
      JSON.stringify({
        accounts: [
          {
            email: 'team@example.com',
            username: 'team',
            token: 'team-token-0123456789',
            users: [
              {
                username: 'reader',
                email: 'reader@example.com',
                restricted: true,
                tokens: [{ token: 'reader-token-0123456789', scopes: 'volumes:read_only' }],
              },
            ],
          },
        ],
        requests: [
          {
            as: 'team',
            method: 'POST',
            path: '/v4/volumes',
            body: { label: 'seeded', region: 'us-east', size: 20 },
          },
        ],
      }),
    );
    const env = {
      ...store.env,
      STRATUS_SEED: seed,
      STRATUS_OPERATOR_TOKEN: OPERATOR,
      STRATUS_ADMIN_TOKEN: 'fixed-admin-token-0001',
      STRATUS_TIMING: 'instant',
    };
    const s = await start(['serve'], env, SERVER_READY);
    procs.push(s);
    expect(s.stdout()).toContain('Seeded 1 account(s) and 1 request(s)');
    expect(s.stdout()).not.toContain('Operator token');
    const vols = await api(s.base, 'team-token-0123456789', 'GET', '/v4/volumes');
    expect(vols.body.data.map((v: any) => v.label)).toEqual(['seeded']);
    const reader = await api(s.base, 'reader-token-0123456789', 'GET', '/v4/profile');
    expect(reader.body).toMatchObject({ username: 'reader', restricted: true });

    // Change the state, export it, reset from the command line while the server runs.
    await api(s.base, 'team-token-0123456789', 'POST', '/v4/volumes', {
      label: 'later',
      region: 'us-east',
      size: 30,
    });
    const file = path.join(dir, 'snap.ndjson');
    const exp = await cli(['state', 'export', '--file', file], env);
    expect(exp.code, exp.err).toBe(0);
    // NDJSON (format 2): the rows' document first, `done` last.
    const firstLine = async () => JSON.parse((await readFile(file, 'utf8')).split('\n')[0] ?? '');
    expect((await firstLine()).format).toBe('stratus-snapshot');
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').at(-1)).toBe(
      '{"done":{"blobs":0}}',
    );

    const reset = await cli(['state', 'reset'], env);
    expect(reset.code, reset.err).toBe(0);
    expect(JSON.parse(reset.out)).toMatchObject({ scope: 'all', seeded: [{ username: 'team' }] });
    // The configured tokens are the first-start ones again; seeded entities are back.
    const afterReset = await api(s.base, 'team-token-0123456789', 'GET', '/v4/volumes');
    expect(afterReset.body.data.map((v: any) => v.label)).toEqual(['seeded']);
    expect((await api(s.base, 'fixed-admin-token-0001', 'GET', '/v4/profile')).status).toBe(200);

    const imp = await cli(['state', 'import', '--file', file], env);
    expect(imp.code, imp.err).toBe(0);
    const afterImport = await api(s.base, 'team-token-0123456789', 'GET', '/v4/volumes');
    expect(afterImport.body.data.map((v: any) => v.label).sort()).toEqual(['later', 'seeded']);

    // Faults set from the command line reach the running server.
    const rules = path.join(dir, 'faults.json');
    await writeFile(rules, JSON.stringify({ rules: [{ path: '/profile', response: 'busy' }] }));
    expect((await cli(['faults', 'set', '--file', rules], env)).code).toBe(0);
    let status = 0;
    for (let i = 0; i < 40 && status !== 400; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await api(s.base, 'fixed-admin-token-0001', 'GET', '/v4/profile')).status;
    }
    expect(status).toBe(400);
    const got = await api(s.base, OPERATOR, 'GET', '/_stratus/faults');
    expect(got.body.rules).toHaveLength(1);
    expect((await cli(['faults', 'clear'], env)).code).toBe(0);

    // A snapshot from a newer Stratus is refused with its reason on stderr.
    const newer = path.join(dir, 'newer.json');
    await writeFile(newer, JSON.stringify({ ...(await firstLine()), version: 99 }));
    const refused = await cli(['state', 'import', '--file', newer], env);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/newer Stratus/);
  }, 240_000);

  it('STRATUS_SEED: a bad seed file stops any start, before anything is written, naming the file, entry and field', async () => {
    const store = await freshStore();
    cleanups.push(store.drop);
    const dir = await mkdtemp(path.join(tmpdir(), 'stratus-badseed-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const seed = path.join(dir, 'seed.json');
    await writeFile(
      seed,
      JSON.stringify({ accounts: [{ email: 'x@example.com', username: 'ci' }] }),
    );
    const r = await cli(['serve'], { ...store.env, STRATUS_SEED: seed, PORT: '0' });
    expect(r.code).toBe(78);
    expect(r.err.trim()).toBe(
      `Configuration error: STRATUS_SEED: ${seed}: accounts[0].username: Username must be between 3 and 32 characters (got "ci")`,
    );
    expect(r.out).toBe('');
    // Nothing was written: the database has no account (the admin commands see none).
    const users = await cli(['admin', 'users'], store.env);
    expect(users.code, users.err).toBe(0);
    expect(JSON.parse(users.out)).toEqual({ accounts: [] });
  }, 120_000);
});
