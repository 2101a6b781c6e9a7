import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { DIALECT } from '../helpers/build-test-app.js';
import { createDatabase, dropDatabase } from '../helpers/pg-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/stratus.js');
const START_TIMEOUT_MS = 25_000;

/** A fresh, empty database for the CLI: a temporary SQLite data dir or a new PostgreSQL database. */
async function freshStore(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (DIALECT === 'postgres') {
    const admin = inject('pgAdminUrl');
    const name = `cli_${randomBytes(6).toString('hex')}`;
    const url = await createDatabase(admin, name);
    return { env: { DATABASE_URL: url }, drop: () => dropDatabase(admin, name) };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'stratus-cli-'));
  return {
    env: { STRATUS_DATA_DIR: dir },
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The parent's environment without any Stratus setting, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) {
    if (/^(HOST|PORT|DATABASE_URL|STRATUS_.*|LOG_LEVEL)$/.test(k)) delete env[k];
  }
  return { ...env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', ...extra };
}

interface Server {
  child: ChildProcess;
  base: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Starts `stratus serve` and waits for its "listening" line. */
async function serve(extra: Record<string, string>, args: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: ROOT,
    env: childEnv(extra),
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + START_TIMEOUT_MS;
  const listening = () => /^Stratus is listening on (http:\/\/\S+)\/v4 /m.exec(out)?.[1];
  while (listening() === undefined) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`serve did not start: ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = listening() as string;
  // Every start-up line is written before the first request is served.
  expect((await fetch(`${base}/_stratus/health`)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 50));
  return { child, base, stdout: () => out, stderr: () => err, exited };
}

/** The token printed on a first start, if any. */
function printedToken(stdout: string): string | undefined {
  return /personal access token \(scope \*\):\n\s+(\S+)\n/.exec(stdout)?.[1];
}

async function profile(base: string, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}/v4/profile`, { headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, body: await r.json() };
}

async function stop(s: Server): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  s.child.kill('SIGTERM');
  const { code } = await s.exited;
  return { code, ms: Date.now() - t0 };
}

afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
});

describe('stratus serve', () => {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const d of drops) await d();
  });

  it('serve: the first start prints a working token; a restart prints none and keeps state', async () => {
    const store = await freshStore();
    drops.push(store.drop);

    const first = await serve(store.env);
    expect(first.stdout().split('\n')[0]).toMatch(
      new RegExp(
        `^Stratus is listening on http://127\\.0\\.0\\.1:\\d+/v4 \\(database: ${DIALECT},`,
      ),
    );
    const token = printedToken(first.stdout());
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const p1 = await profile(first.base, token as string);
    expect(p1.status).toBe(200);
    expect(p1.body.username).toBe('admin');
    expect(first.stderr()).not.toContain(token as string);
    expect((await stop(first)).code).toBe(0);

    const second = await serve(store.env);
    expect(printedToken(second.stdout())).toBeUndefined();
    expect(second.stdout()).not.toContain('Created the default account');
    // It says how to get a token again.
    expect(second.stdout()).toContain(
      'The database already has accounts: the admin token was shown at its first start. ' +
        'A new one: stratus admin token --username admin (same DATABASE_URL).',
    );
    const p2 = await profile(second.base, token as string);
    expect(p2.status).toBe(200);
    expect(p2.body.username).toBe('admin');
    expect((await stop(second)).code).toBe(0);
  });

  it('serve: STRATUS_ADMIN_TOKEN is the default admin token on the first start', async () => {
    const store = await freshStore();
    drops.push(store.drop);
    const chosen = `chosen-${randomBytes(12).toString('hex')}`;
    const s = await serve({ ...store.env, STRATUS_ADMIN_TOKEN: chosen });
    // The chosen token is not echoed: the operator already has it.
    expect(s.stdout()).toContain('(the value of STRATUS_ADMIN_TOKEN)');
    expect(s.stdout()).not.toContain(chosen);
    const p = await profile(s.base, chosen);
    expect(p.status).toBe(200);
    expect(p.body.username).toBe('admin');
    expect((await profile(s.base, 'x'.repeat(32))).status).toBe(401);
    expect((await stop(s)).code).toBe(0);
  });

  it('serve: SIGTERM lets a request in flight finish, then exits 0 at once', async () => {
    const store = await freshStore();
    drops.push(store.drop);
    const s = await serve(store.env);
    const token = printedToken(s.stdout()) as string;

    // A keep-alive client whose request body is still arriving when the signal comes.
    const agent = new http.Agent({ keepAlive: true });
    const req = http.request(`${s.base}/v4/account/events/1/seen`, {
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '2',
      },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    req.write('{');
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    req.end('}');

    const r = await answer;
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({ errors: [{ reason: 'Not found' }] });
    const { code } = await s.exited;
    expect(code).toBe(0);
    // Not held open until the keep-alive timeout.
    expect(Date.now() - t0).toBeLessThan(5_000);
    agent.destroy();
  });

  it('serve --no-worker: ready fails while jobs wait and no worker runs; a worker makes it ready', async () => {
    const store = await freshStore();
    drops.push(store.drop);
    const api = await serve({ ...store.env, STRATUS_WORKER_TIMEOUT: '10' }, ['--no-worker']);
    const token = printedToken(api.stdout()) as string;
    const created = await fetch(`${api.base}/v4/volumes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'waits', region: 'us-east', size: 20 }),
    });
    expect(created.status).toBe(200);
    // The volume's job falls due within a second on the fast profile; nobody runs it.
    let ready: Response | undefined;
    for (let i = 0; i < 50; i++) {
      ready = await fetch(`${api.base}/_stratus/ready`);
      if (ready.status === 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready?.status).toBe(503);
    const why = (await ready?.json()) as { problems: string[] };
    expect(why.problems[0]).toMatch(/job\(s\) wait and no job worker has been seen for 10 s/);
    const health = (await (await fetch(`${api.base}/_stratus/health`)).json()) as any;
    expect(health).toMatchObject({
      status: 'degraded',
      process: { role: 'serve --no-worker' },
      workers: [],
    });

    const worker = spawn(process.execPath, [BIN, 'worker'], {
      cwd: ROOT,
      env: childEnv(store.env),
    });
    running.add(worker);
    try {
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await fetch(`${api.base}/_stratus/ready`)).status;
      }
      expect(status).toBe(200);
      const seen = (await (await fetch(`${api.base}/_stratus/health`)).json()) as any;
      expect(seen.workers).toEqual([expect.objectContaining({ kind: 'worker' })]);
    } finally {
      worker.kill('SIGTERM');
      await new Promise((r) => worker.on('exit', r));
      running.delete(worker);
    }
    // A worker that stopped gracefully is no longer listed.
    const after = (await (await fetch(`${api.base}/_stratus/health`)).json()) as any;
    expect(after.workers).toEqual([]);
    expect((await stop(api)).code).toBe(0);
  });

  it('serve: a bad environment value exits non-zero with a message naming it', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: ROOT,
      env: childEnv({ PORT: 'abc', STRATUS_DATA_DIR: path.join(tmpdir(), 'never-created') }),
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(78);
    expect(err.trim()).toBe('Configuration error: PORT: must be an integer (got "abc")');
    expect(out).toBe('');
  });
});
