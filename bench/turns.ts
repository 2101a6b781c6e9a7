/**
 * Two (or more) builds side by side, loaded in turns (`npm run bench:turns`): for a change of the
 * request pipeline on a shared machine, where a whole `npm run bench` is too noisy. Each root
 * (ROOTS, comma-separated: a copy of the previous build's `bin/`, `dist/` and `package.json` with
 * a `node_modules` link, and this worktree) serves its own seeded SQLite database; each round
 * loads every path (PATHS) on every server in turn, 32 connections for SECS seconds; printed: req/s
 * and the server's CPU per request (min, first quartile, median over ROUNDS rounds). A root may
 * name node flags after a `#`, space-separated, given after the flags of `npm start` (the last
 * value of a V8 flag wins): `ROOTS=.,.#--max-semi-space-size=16` compares two settings of one build.
 * At the end each server's peak resident set (VmHWM) is printed too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './load.js';
import { readMemory } from './memory.js';
import { seedDatabase } from './seed.js';
import { processCpuMs, type Server, startStratus } from './servers.js';

const token = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const roots = (process.env.ROOTS ?? process.cwd()).split(',');
const paths = (process.env.PATHS ?? '/v4/profile,/v4/compute/types/g6-nanode-1').split(',');
const rounds = Number(process.env.ROUNDS ?? 4);
const secs = Number(process.env.SECS ?? 3);

/** A build's server on a seeded SQLite database of its own (removed when it stops). */
async function start(spec: string, env: Record<string, string>): Promise<Server> {
  const [root = '.', flags = ''] = spec.split('#');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'stratus-turns-'));
  await seedDatabase({
    databaseUrl: `sqlite:${path.join(dataDir, 'stratus.db')}`,
    adminToken: token,
    events: 1000,
    entities: 10,
    instances: 0,
  });
  const server = await startStratus({
    adminToken: token,
    dataDir,
    env,
    root,
    nodeArgs: flags.split(' ').filter((f) => f !== ''),
  });
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const env: Record<string, string> = process.env.WORD
  ? { STRATUS_PRODUCT_WORD: process.env.WORD }
  : {};
const servers = [];
for (const r of roots) servers.push(await start(r, env));
const results: Record<string, { rps: number[]; ms: number[] }> = {};
try {
  for (const s of servers)
    for (const p of paths)
      await runLoad({
        url: s.url + p,
        headers: { authorization: `Bearer ${token}` },
        connections: 32,
        seconds: 1,
      });
  for (let i = 0; i < rounds; i++) {
    for (const p of paths) {
      for (const [j, s] of servers.entries()) {
        const before = await processCpuMs(s.pid);
        const r = await runLoad({
          url: s.url + p,
          headers: { authorization: `Bearer ${token}` },
          connections: 32,
          seconds: secs,
        });
        const cpu = (await processCpuMs(s.pid)) - before;
        const key = `${p} ${roots[j]}`;
        results[key] ??= { rps: [], ms: [] };
        results[key].rps.push(Math.round(r.rps));
        results[key].ms.push(Number((cpu / r.requests).toFixed(4)));
        if (r.failures) console.log('FAILURES', key, r.failures);
      }
    }
  }
} finally {
  for (const [j, s] of servers.entries()) {
    try {
      console.log(`${roots[j]}: peak RSS (VmHWM) ${readMemory(s.pid).hwm.toFixed(0)} MB`);
    } catch {
      console.log(`${roots[j]}: exited before its memory was read`);
    }
    await s.stop();
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const lo = (a: number[]) => [...a].sort((x, y) => x - y);
for (const [k, v] of Object.entries(results))
  console.log(
    k.padEnd(50),
    'req/s med',
    med(v.rps),
    'max',
    Math.max(...v.rps),
    '| ms/req min',
    Math.min(...v.ms),
    'p25',
    lo(v.ms)[Math.floor(v.ms.length / 4)],
    'med',
    med(v.ms),
  );
