/**
 * The resets of issue 28, two (or more) builds in turns (`node --import tsx bench/reset-turns.ts`):
 * for a change of the reset on a shared machine, where the req/s of a whole `npm run bench` moves
 * with the load. Each root (ROOTS, comma-separated: a copy of the previous build's `bin/`,
 * `dist/` and `package.json` with a `node_modules` link, and this worktree) serves a database of
 * its own (a root may name settings of its server after a `|`: `/path|STRATUS_PG_STATEMENTS=0`), on PostgreSQL with BENCH_DB=postgres (one embedded server, a database per root) or
 * in-memory SQLite, with bench/count-statements.mjs preloaded and the `instant` timing profile.
 * Each round, on every server in turn: the admin's account is given 1,000 entities through the
 * API (bench/resets.ts), then reset alone (`POST /_stratus/reset {euuid}`); filled again, then a
 * full reset. Printed per root and kind: the statements the server sent during the reset (on
 * PostgreSQL each is a round trip; the job runner's polls meanwhile included, see the idle
 * figure), its wall time and the server's CPU, median over ROUNDS (default 5).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, startPgServer } from '../test/helpers/pg-server.js';
import { fill } from './resets.js';
import { processCpuMs, type Server, startStratus, statementCounts } from './servers.js';

const COUNTER = fileURLToPath(new URL('./count-statements.mjs', import.meta.url));
const token = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const operator = `bench-${Math.random().toString(36).slice(2)}-operator-0123456789`;
const roots = (process.env.ROOTS ?? process.cwd()).split(',');
const rounds = Number(process.env.ROUNDS ?? 5);
const onPg = process.env.BENCH_DB === 'postgres' || process.argv.includes('--pg');

interface Target {
  root: string;
  server: Server;
  countFile: string;
  api: (p: string, init?: { method?: string; body?: unknown }) => Promise<Response>;
  reset: (euuid?: string) => Promise<void>;
}

async function start(entry: string, databaseUrl: string | undefined, i: number): Promise<Target> {
  const [root = entry, ...settings] = entry.split('|');
  const extra = Object.fromEntries(settings.map((kv) => kv.split('=', 2) as [string, string]));
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'stratus-reset-turns-'));
  const countFile = path.join(tmp, `counts-${i}.json`);
  const server = await startStratus({
    adminToken: token,
    dataDir: tmp,
    databaseUrl: databaseUrl ?? 'sqlite::memory:',
    root,
    nodeArgs: ['--import', COUNTER],
    env: {
      BENCH_COUNT_FILE: countFile,
      STRATUS_OPERATOR_TOKEN: operator,
      STRATUS_TIMING: 'instant',
      ...extra,
    },
  });
  const call = (url: string, bearer: string, method: string, body?: unknown) =>
    fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    root: entry,
    server: {
      ...server,
      stop: async () => {
        await server.stop();
        await rm(tmp, { recursive: true, force: true });
      },
    },
    countFile,
    api: (p, init = {}) => call(`${server.url}/v4${p}`, token, init.method ?? 'GET', init.body),
    reset: async (euuid) => {
      const r = await call(
        `${server.url}/_stratus/reset`,
        operator,
        'POST',
        euuid === undefined ? {} : { euuid },
      );
      if (r.status !== 200) throw new Error(`reset: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    },
  };
}

interface Sample {
  statements: number;
  commits: number;
  ms: number;
  cpuMs: number;
}

/** Waits until the server sends nothing for a while (the fill's jobs are done). */
async function quiet(t: Target): Promise<number> {
  let last = await statementCounts(t.server, t.countFile);
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 300));
    const now = await statementCounts(t.server, t.countFile);
    if (now.statements - last.statements <= 2) return now.statements - last.statements;
    last = now;
  }
  return -1;
}

async function measure(t: Target, kind: 'account' | 'full', run: number): Promise<Sample> {
  await fill(t, run);
  await quiet(t);
  const account = (await (await t.api('/account')).json()) as { euuid: string };
  const a = await statementCounts(t.server, t.countFile);
  const cpu0 = await processCpuMs(t.server.pid);
  const t0 = performance.now();
  await t.reset(kind === 'account' ? account.euuid : undefined);
  const ms = performance.now() - t0;
  const cpu1 = await processCpuMs(t.server.pid);
  const b = await statementCounts(t.server, t.countFile);
  const left = (await (await t.api('/volumes')).json()) as { results: number };
  if (left.results !== 0) throw new Error(`after a reset the account has ${left.results} volumes`);
  return {
    statements: b.statements - a.statements,
    commits: b.commit - a.commit,
    ms,
    cpuMs: cpu1 - cpu0,
  };
}

const med = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
};

const pg = onPg ? await startPgServer() : undefined;
const targets: Target[] = [];
try {
  for (const [i, root] of roots.entries()) {
    const url = pg ? await createDatabase(pg.url, `reset_turns_${i}`) : undefined;
    targets.push(await start(root, url, i));
  }
  const samples = new Map<string, Sample[]>();
  let run = 0;
  for (let r = 0; r <= rounds; r++) {
    for (const t of targets) {
      for (const kind of ['account', 'full'] as const) {
        const s = await measure(t, kind, run++);
        if (r === 0) continue; // the first round warms up
        const key = `${t.root}\t${kind}`;
        samples.set(key, [...(samples.get(key) ?? []), s]);
        process.stderr.write(
          `round ${r} ${path.basename(t.root)} ${kind}: ${s.statements} statements, ${s.ms.toFixed(1)} ms, cpu ${s.cpuMs} ms\n`,
        );
      }
    }
  }
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  console.log(
    `resets after 1,000 entities, ${onPg ? 'PostgreSQL' : 'SQLite'}, ${rounds} rounds in turns (median; load ${load} at the end)`,
  );
  for (const [key, xs] of samples) {
    const [root, kind] = key.split('\t');
    console.log(
      `${root} ${kind}: statements ${med(xs.map((x) => x.statements))} (commits ${med(
        xs.map((x) => x.commits),
      )}), ${med(xs.map((x) => x.ms)).toFixed(1)} ms (min ${Math.min(
        ...xs.map((x) => x.ms),
      ).toFixed(1)}), server CPU ${med(xs.map((x) => x.cpuMs))} ms`,
    );
  }
} finally {
  for (const t of targets) await t.server.stop();
  await pg?.stop();
}
