/**
 * What a create costs with the work it leaves behind (`node --import tsx bench/create-life.ts
 * volumes|tags`; SECS, default 3): seeds a small SQLite database, starts `stratus serve` with
 * bench/count-statements.mjs, loads the create for SECS at 32 connections and waits 2.5 s for its
 * jobs (the `fast` profile: a volume's five steps take 1 s), then prints per create the statements,
 * BEGINs and COMMITs (the job's steps and the runner's claims included) and the server's CPU over
 * the load and the wait, less an idle period's. Compare two builds in turns, on the same machine.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runLoad } from './load.js';
import { seedDatabase } from './seed.js';
import { processCpuMs, startStratus, statementCounts } from './servers.js';
const token = `bench-${Math.random().toString(36).slice(2)}-token-0123456789`;
const kind = process.argv[2] ?? 'volumes';
async function main() {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'vol9-life-'));
  const dataDir = path.join(tmp, 'data');
  await seedDatabase({
    databaseUrl: `sqlite:${path.join(dataDir, 'stratus.db')}`,
    adminToken: token,
    events: 1000,
    entities: 10,
    instances: 0,
  });
  const countFile = path.join(tmp, 'counts.json');
  const server = await startStratus({
    adminToken: token,
    dataDir,
    env: { BENCH_COUNT_FILE: countFile },
    nodeArgs: ['--import', './bench/count-statements.mjs'],
  });
  try {
    const url = `${server.url}/v4/${kind}`;
    const headers = { authorization: `Bearer ${token}` };
    const post = (n: number) =>
      kind === 'tags' ? { label: `t-${n}` } : { label: `v-${n}`, region: 'us-east', size: 20 };
    await runLoad({ url, headers, connections: 32, seconds: 1, post });
    await new Promise((r) => setTimeout(r, 2500));
    const a = await statementCounts(server, countFile);
    const cpu0 = await processCpuMs(server.pid);
    const r = await runLoad({
      url,
      headers,
      connections: 32,
      seconds: Number(process.env.SECS ?? 3),
      post: (n) => post(n + 1_000_000),
    });
    await new Promise((r) => setTimeout(r, 2500));
    const cpu1 = await processCpuMs(server.pid);
    const b = await statementCounts(server, countFile);
    const idle0 = await processCpuMs(server.pid);
    await new Promise((r) => setTimeout(r, 2500));
    const c = await statementCounts(server, countFile);
    const idle1 = await processCpuMs(server.pid);
    const n = r.requests;
    const per = (k: 'statements' | 'begin' | 'commit') => ((b[k] - a[k]) / n).toFixed(2);
    console.log(
      `${kind}: ${n} creates, ${Math.round(r.rps)} req/s; per create with its job: statements ${per('statements')}, BEGIN ${per('begin')}, COMMIT ${per('commit')}; idle 2.5 s: ${c.statements - b.statements} statements, ${c.commit - b.commit} commits`,
    );
    console.log(
      `server CPU per create with its job (load + 2.5 s drain): ${((cpu1 - cpu0 - (idle1 - idle0)) / n).toFixed(3)} ms`,
    );
  } finally {
    await server.stop();
  }
}
main();
