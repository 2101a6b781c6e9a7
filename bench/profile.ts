/**
 * Profiles Stratus under the benchmark's load (`node --import tsx bench/profile.ts <scenario>`):
 * seeds a database like `npm run bench`, starts `stratus serve` with `--cpu-prof`, loads one
 * scenario (`profile`, `events` or `type`) for BENCH_SECONDS (default 8), stops the server and
 * prints the top functions and files by self time during the measured load (not start-up). BENCH_DB=postgres for
 * PostgreSQL. Also prints the CPU time of the server and of the load generator (this process).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDatabase, startPgServer } from '../test/helpers/pg-server.js';
import { runLoad } from './load.js';
import { FIRST_ENTITY_ID, seedDatabase } from './seed.js';
import { processCpuMs, startStratus } from './servers.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** CLOCK_MONOTONIC in µs: the clock of V8's profile timestamps, the same in every process. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const scenario = process.argv[2] ?? 'events';
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const token = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const auth = { authorization: `Bearer ${token}` };
const requests: Record<
  string,
  { path: string; headers: Record<string, string>; post?: (n: number) => unknown }
> = {
  tags: { path: '/v4/tags', headers: auth, post: (n) => ({ label: `prof-${n}` }) },
  volumes: {
    path: '/v4/volumes',
    headers: auth,
    post: (n) => ({ label: `prof-${n}`, region: 'us-east', size: 20 }),
  },
  type: { path: '/v4/compute/types/g6-nanode-1', headers: {} },
  profile: { path: '/v4/profile', headers: auth },
  instances: { path: '/v4/compute/instances', headers: auth },
  events: {
    path: '/v4/account/events?page_size=100',
    headers: { ...auth, 'x-filter': JSON.stringify({ 'entity.id': FIRST_ENTITY_ID }) },
  },
};

/** Self time by function and by file, of the samples taken within [fromUs, toUs]. */
function summarize(p: Profile, fromUs: number, toUs: number, top = 30): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t >= fromUs && t <= toUs) self.set(id, (self.get(id) ?? 0) + dt);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const f = n.callFrame;
    const file =
      f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '') || '(native)';
    const key = `${f.functionName || '(anon)'} ${file}:${f.lineNumber + 1}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    const pkg = file.startsWith('src/')
      ? file
      : file
          .split('/')
          .slice(0, file.startsWith('@') ? 2 : 1)
          .join('/') || file;
    fileSelf.set(pkg, (fileSelf.get(pkg) ?? 0) + us);
  }
  const fmt = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return `top functions (self):\n${fmt(fnSelf, top)}\n\ntop files/packages (self):\n${fmt(fileSelf, 20)}`;
}

async function main(): Promise<void> {
  const req = requests[scenario];
  if (!req) throw new Error(`scenario: one of ${Object.keys(requests).join(', ')}`);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'stratus-prof-'));
  const profDir = path.join(tmp, 'prof');
  let databaseUrl: string | undefined;
  let stopPg: (() => Promise<void>) | undefined;
  if (process.env.BENCH_DB === 'postgres') {
    const pg = await startPgServer();
    stopPg = pg.stop;
    databaseUrl = await createDatabase(pg.url, 'bench_prof');
  }
  const dataDir = path.join(tmp, 'data');
  const seedUrl = databaseUrl ?? `sqlite:${path.join(dataDir, 'stratus.db')}`;
  await seedDatabase({
    databaseUrl: seedUrl,
    adminToken: token,
    events: 100_000,
    entities: 1000,
    instances: scenario === 'instances' ? 1000 : 0,
  });
  const server = await startStratus({
    adminToken: token,
    ...(databaseUrl ? { databaseUrl } : { dataDir }),
    nodeArgs: [`--cpu-prof`, `--cpu-prof-dir=${profDir}`],
  });
  let window = [0, 0] as [number, number];
  try {
    const url = `${server.url}${req.path}`;
    await runLoad({ url, headers: req.headers, connections: 32, seconds: 2, post: req.post });
    const before = { server: await processCpuMs(server.pid), self: process.cpuUsage() };
    const t0 = performance.now();
    const from = monotonicUs();
    const r = await runLoad({
      url,
      headers: req.headers,
      connections: 32,
      seconds,
      post: req.post && ((n) => req.post?.(n + 1_000_000)),
    });
    window = [from, monotonicUs()];
    const wall = performance.now() - t0;
    const serverMs = (await processCpuMs(server.pid)) - before.server;
    const selfCpu = process.cpuUsage(before.self);
    const selfMs = (selfCpu.user + selfCpu.system) / 1000;
    console.log(
      `${scenario}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, failures ${r.failures}`,
    );
    console.log(
      `CPU over ${(wall / 1000).toFixed(1)} s: server ${((100 * serverMs) / wall).toFixed(0)}% of a core (${(serverMs / r.requests).toFixed(3)} ms/request), load generator ${((100 * selfMs) / wall).toFixed(0)}% (${(selfMs / r.requests).toFixed(3)} ms/request)`,
    );
  } finally {
    await server.stop();
  }
  const files = (await readdir(profDir)).filter((f) => f.endsWith('.cpuprofile'));
  for (const f of files) {
    const p = JSON.parse(await readFile(path.join(profDir, f), 'utf8')) as Profile;
    console.log(
      `\n${f} (the measured load only)\n${summarize(p, ...window, Number(process.env.TOP ?? 40))}`,
    );
  }
  if (process.env.KEEP_PROFILE !== '1') await rm(tmp, { recursive: true, force: true });
  else console.log(`\nkept ${tmp}`);
  await stopPg?.();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
